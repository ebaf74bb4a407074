import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_CHUNK_ROWS, collectRows } from '../../src/ports/row-stream.ts';
import { SqliteSource } from './sqlite-source.ts';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function sourceFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dpone-sqlite-src-'));
  dirs.push(dir);
  const path = join(dir, 'source.db');
  const db = new DatabaseSync(path);
  db.exec('CREATE TABLE src (id INTEGER, day TEXT, amount REAL)');
  db.exec(
    "INSERT INTO src VALUES (9007199254740993, 'd1', 1.5), (-9223372036854775808, 'd1', 2), (42, 'd1', NULL), (7, 'd2', 0)",
  );
  db.close();
  return path;
}

describe('sqlite source values', () => {
  it('reads every INTEGER as an exact bigint and every REAL as a number, and says so (issue 29)', async () => {
    await using source = await SqliteSource.open(sourceFile(), 'src', ['id', 'day', 'amount']);
    const stream = await source.read({ partitionColumn: 'day', partitionValue: 'd1' });
    expect(stream.numbers).toBe('typed');
    const rows = await collectRows(stream);
    const byId = new Map(rows.map((row) => [String(row[0]), row[2]]));
    expect(new Set(rows.map((row) => typeof row[0]))).toEqual(new Set(['bigint']));
    expect(new Set(byId.keys())).toEqual(new Set(['42', '-9223372036854775808', '9007199254740993']));
    // amount is REAL: 2 was stored as REAL 2.0 and stays a JS number, not a bigint.
    expect(byId.get('-9223372036854775808')).toBe(2);
    expect(byId.get('42')).toBeNull();
    expect(byId.get('9007199254740993')).toBe(1.5);
  });
});

/** A source table of `n` rows in partition d1 (and one in d2), created by `ddl`. */
function bigSource(n: number, ddl = 'CREATE TABLE src (id INTEGER, day TEXT, amount REAL)'): string {
  const dir = mkdtempSync(join(tmpdir(), 'dpone-sqlite-src-'));
  dirs.push(dir);
  const path = join(dir, 'source.db');
  const db = new DatabaseSync(path);
  db.exec(ddl);
  db.exec(
    `INSERT INTO src (id, day, amount) WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < ${n}) ` +
      "SELECT i, 'd1', i / 2.0 FROM g",
  );
  db.exec("INSERT INTO src (id, day, amount) VALUES (0, 'd2', 0)");
  db.close();
  return path;
}

async function chunkSizes(path: string, columns = ['id', 'day', 'amount']) {
  await using source = await SqliteSource.open(path, 'src', columns);
  const sizes: number[] = [];
  const ids: unknown[] = [];
  for await (const chunk of await source.read({ partitionColumn: 'day', partitionValue: 'd1' })) {
    sizes.push(chunk.length);
    // Integers arrive as bigints; shown as numbers where exact, as text beyond 2^53.
    const shown = (v: unknown) =>
      typeof v === 'bigint' ? (v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString()) : v;
    ids.push(...chunk.map((row) => shown(row[0])));
  }
  return { sizes, ids };
}

describe('sqlite source chunks', () => {
  const n = 2 * DEFAULT_CHUNK_ROWS + 3;
  const expected = Array.from({ length: n }, (_, i) => i + 1);

  it('yields every row of the partition once, in chunks of at most the chunk size', async () => {
    const { sizes, ids } = await chunkSizes(bigSource(n));
    expect(sizes).toEqual([DEFAULT_CHUNK_ROWS, DEFAULT_CHUNK_ROWS, 3]);
    expect(ids).toEqual(expected);
  });

  it('a column named rowid does not confuse the ranges (another rowid name is used)', async () => {
    const path = bigSource(n, 'CREATE TABLE src (id INTEGER, day TEXT, amount REAL, rowid TEXT)');
    const { sizes, ids } = await chunkSizes(path, ['id', 'day', 'amount', 'rowid']);
    expect(sizes).toEqual([DEFAULT_CHUNK_ROWS, DEFAULT_CHUNK_ROWS, 3]);
    expect(ids).toEqual(expected);
  });

  it('a WITHOUT ROWID table is stepped through instead', async () => {
    const path = bigSource(
      n,
      'CREATE TABLE src (id INTEGER PRIMARY KEY, day TEXT, amount REAL) WITHOUT ROWID',
    );
    const { sizes, ids } = await chunkSizes(path);
    expect(sizes).toEqual([DEFAULT_CHUNK_ROWS, DEFAULT_CHUNK_ROWS, 3]);
    expect(ids).toEqual(expected);
  });

  it('an integer beyond 2^53 deep in the partition arrives exactly', async () => {
    const path = bigSource(n);
    const db = new DatabaseSync(path);
    db.exec(`UPDATE src SET id = 9007199254740993 WHERE id = ${DEFAULT_CHUNK_ROWS + 5}`);
    db.close();
    const { ids } = await chunkSizes(path);
    expect(ids).toHaveLength(n);
    expect(ids[DEFAULT_CHUNK_ROWS + 4]).toBe('9007199254740993');
    expect(ids.filter((id) => typeof id === 'number')).toHaveLength(n - 1);
  });
});
