import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { collectRows } from '../../../ports/row-stream.ts';
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
  it('keeps integers beyond 2^53 exact (as text) and safe integers as numbers', async () => {
    await using source = await SqliteSource.open(sourceFile(), 'src', ['id', 'day', 'amount']);
    const rows = await collectRows(await source.read({ partitionColumn: 'day', partitionValue: 'd1' }));
    const byId = new Map(rows.map((row) => [row[0], row[2]]));
    expect(new Set(byId.keys())).toEqual(new Set([42, '-9223372036854775808', '9007199254740993']));
    expect(byId.get('-9223372036854775808')).toBe(2);
    expect(byId.get(42)).toBeNull();
    expect(byId.get('9007199254740993')).toBe(1.5);
  });
});
