import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BUILT_IN_CONNECTORS } from './engine-table.ts';
import { embeddedEngine } from './engine-roles.ts';

interface EmbeddedFiles {
  readFileRows(path: string, sql: string): Record<string, unknown>[];
  lockFile(path: string): { release(): void };
  tableNames(path: string): string[];
  changeFile(path: string, sql: string): void;
}

/*
 * The embedded engine's own file reader for tests: `embedded-files.test-support.ts` in the folder
 * its engine-table line names (as the harness registry loads `harness/engine.ts`), so a test of the
 * embedded route reads its target or journal file and names no engine.
 */
const support = (await import(
  pathToFileURL(join(BUILT_IN_CONNECTORS[embeddedEngine()[0]]!.folder, 'embedded-files.test-support.ts')).href
)) as EmbeddedFiles;

/** The rows `sql` selects from the embedded engine's database file at `path`, opened read-only. */
export function readFileRows(path: string, sql: string): Record<string, unknown>[] {
  return support.readFileRows(path, sql);
}

/** The one row `sql` selects (the first, when more). */
export function readFileRow(path: string, sql: string): Record<string, unknown> {
  const rows = readFileRows(path, sql);
  if (rows.length === 0) throw new TypeError(`no row for: ${sql}`);
  return rows[0]!;
}

/** Holds the embedded engine's exclusive write lock on the file at `path` (created when absent) until released. */
export function lockFile(path: string): { release(): void } {
  return support.lockFile(path);
}

/** The names of every table in the embedded engine's database file at `path`, sorted. */
export function tableNames(path: string): string[] {
  return support.tableNames(path);
}

/** Runs `sql` against the embedded engine's database file at `path`: a change made by hand. */
export function changeFile(path: string, sql: string): void {
  support.changeFile(path, sql);
}
