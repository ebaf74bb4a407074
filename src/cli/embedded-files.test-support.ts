import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BUILT_IN_CONNECTORS } from './engine-table.ts';
import { embeddedEngine } from './engine-roles.ts';

/** How a reader opens the file: read-only unless `readOnly: false` (opened as a writer, created when absent). */
export interface FileAccess {
  readonly readOnly?: boolean;
}

interface EmbeddedFiles {
  readFileRows(path: string, sql: string, access?: FileAccess): Record<string, unknown>[];
  lockFile(path: string): { release(): void };
  tableNames(path: string, access?: FileAccess): string[];
  changeFile(path: string, sql: string): void;
}

/**
 * The embedded engine's own test support `file` (`embedded-files.test-support.ts`, …): loaded from
 * the folder its engine-table line names (as the harness registry loads `harness/engine.ts`), so a
 * test of the embedded route reads its files or opens its connectors and names no engine.
 */
export async function embeddedTestSupport<T>(file: string): Promise<T> {
  const folder = BUILT_IN_CONNECTORS[embeddedEngine()[0]]!.folder;
  return (await import(pathToFileURL(join(folder, file)).href)) as T;
}

const support = await embeddedTestSupport<EmbeddedFiles>('embedded-files.test-support.ts');

/** The rows `sql` selects from the embedded engine's database file at `path`, opened read-only unless asked. */
export function readFileRows(path: string, sql: string, access: FileAccess = {}): Record<string, unknown>[] {
  return support.readFileRows(path, sql, access);
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
export function tableNames(path: string, access: FileAccess = {}): string[] {
  return support.tableNames(path, access);
}

/** Runs `sql` against the embedded engine's database file at `path`: a change made by hand. */
export function changeFile(path: string, sql: string): void {
  support.changeFile(path, sql);
}
