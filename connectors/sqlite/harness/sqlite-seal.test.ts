import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sealSqliteFile } from './sqlite-seal.ts';

let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function cell(): string {
  dir = mkdtempSync(join(tmpdir(), 'dpone-sqlite-seal-'));
  const db = new DatabaseSync(join(dir, 'source.db'));
  db.exec('CREATE TABLE orders (id INTEGER)');
  db.close();
  return dir;
}

describe('sealing a SQLite file for one attempt', () => {
  it('sees an attempt that only opened the sealed file and swallowed what followed', async () => {
    const root = cell();
    const before = readFileSync(join(root, 'source.db'));
    const seal = await sealSqliteFile(root, 'source.db', 'sqlite:source.db');
    // A prefetch whose error is swallowed: the open succeeds (an empty file), the read fails.
    try {
      const db = new DatabaseSync(join(root, 'source.db'), { readOnly: true });
      try {
        db.prepare('SELECT * FROM orders').all();
      } finally {
        db.close();
      }
    } catch {
      // swallowed, as the flawed executor does
    }
    const touched = await seal.release();
    expect(touched.join('; ')).toMatch(/^source\.db opened.*\(placeholder\)$/);
    expect(readFileSync(join(root, 'source.db'))).toEqual(before);
  });

  it('reports nothing when nothing touched it, and brings the file back byte for byte', async () => {
    const root = cell();
    const before = readFileSync(join(root, 'source.db'));
    const seal = await sealSqliteFile(root, 'source.db', 'sqlite:source.db');
    expect(await seal.release()).toEqual([]);
    expect(readFileSync(join(root, 'source.db'))).toEqual(before);
  });

  it('reports a file SQLite created beside the placeholder', async () => {
    const root = cell();
    const seal = await sealSqliteFile(root, 'source.db', 'sqlite:source.db');
    writeFileSync(join(root, 'source.db-journal'), 'x');
    expect(await seal.release()).toEqual(['source.db-journal created']);
  });
});
