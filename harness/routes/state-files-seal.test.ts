import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sealStateFiles } from './state-files-seal.ts';

const FILES = ['target.db', 'target.db.wal'];
let dir = '';

function cell(): string {
  dir = mkdtempSync(join(tmpdir(), 'dpone-state-seal-'));
  writeFileSync(join(dir, 'target.db'), 'rows and fence');
  // target.db.wal is declared but absent (no kill left one): its name is sealed all the same.
  return dir;
}

afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("sealing a plug-in target's state files for one attempt", () => {
  it('puts an empty watched file in place of every declared name, and restores the bytes untouched', async () => {
    const root = cell();
    const seal = await sealStateFiles(root, FILES, 'x:target.db');
    for (const name of FILES) expect(statSync(join(root, name)).size).toBe(0);
    expect(await seal.release()).toEqual([]);
    expect(readFileSync(join(root, 'target.db'), 'utf8')).toBe('rows and fence');
    expect(existsSync(join(root, 'target.db.wal'))).toBe(false);
  });

  it('reports an attempt that only opened a placeholder, and one that replaced or wrote one', async () => {
    const root = cell();
    const seal = await sealStateFiles(root, FILES, 'x:target.db');
    // An open that reads nothing and fails nothing: what a folder in its place never showed.
    closeSync(openSync(join(root, 'target.db.wal'), 'r'));
    rmSync(join(root, 'target.db'));
    writeFileSync(join(root, 'target.db'), 'a fresh, empty target');
    const touched = await seal.release();
    expect(touched).toHaveLength(2);
    expect(touched[0]).toMatch(/^target\.db .*deleted.*\(placeholder\)$/);
    expect(touched[1]).toBe('target.db.wal opened (placeholder)');
    // The real target comes back whatever the attempt did.
    expect(readFileSync(join(root, 'target.db'), 'utf8')).toBe('rows and fence');
  });

  it('reports a moved file whose bytes changed meanwhile', async () => {
    const root = cell();
    const seal = await sealStateFiles(root, FILES, 'x:target.db');
    writeFileSync(join(root, 'sealed-away-target', 'target.db'), 'changed');
    expect(await seal.release()).toEqual(['target.db changed']);
  });
});
