import { mkdtempSync, rmSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';

/** A test's own folder: its files by name, and the options of a target `events` in `target.db`. */
export interface SourceFolder {
  at(name: string): string;
  targetOptions(): {
    readonly path: string;
    readonly table: 'events';
    readonly columns: readonly string[];
    readonly naturalKey: readonly string[];
  };
}

/**
 * Registers a fresh folder for every test (removed after it) whose `source.db` the `statements`
 * create and fill (a table `events`); the target the options name is `target.db` beside it, keyed by `id`.
 */
export function sourceFolder(
  prefix: string,
  statements: readonly string[],
  columns: readonly string[],
): SourceFolder {
  let dir = '';
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), prefix));
    const db = new DatabaseSync(join(dir, 'source.db'));
    for (const sql of statements) db.exec(sql);
    db.close();
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  return {
    at: (name) => join(dir, name),
    targetOptions: () => ({ path: join(dir, 'target.db'), table: 'events', columns, naturalKey: ['id'] }),
  };
}

/**
 * One amount of each kind a copy must keep in its storage class (issue 29), as an INSERT's VALUES of
 * (day 'd', id 1 to 6, amount): REAL 20.0, INTEGER 20, TEXT '20', the largest INTEGER, a REAL no
 * INTEGER holds, a BLOB; and those storage classes (`typeof`) in id order.
 */
export const TYPED_AMOUNT_VALUES =
  "('d', 1, 20.0), ('d', 2, 20), ('d', 3, '20'), ('d', 4, 9223372036854775807), ('d', 5, 1e300), ('d', 6, x'00ff')";
export const TYPED_AMOUNT_CLASSES = ['real', 'integer', 'text', 'integer', 'real', 'blob'] as const;
