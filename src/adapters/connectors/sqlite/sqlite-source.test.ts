import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
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
    const { rows } = await source.read({ partitionColumn: 'day', partitionValue: 'd1' });
    expect(rows.map((row) => row.id)).toEqual(['-9223372036854775808', 42, '9007199254740993']);
    expect(rows.map((row) => row.amount)).toEqual([2, null, 1.5]);
  });
});
