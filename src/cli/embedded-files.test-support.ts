import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BUILT_IN_CONNECTORS } from './engine-table.ts';
import { embeddedEngine } from './engine-roles.ts';

interface EmbeddedFiles {
  readFileRows(path: string, sql: string): Record<string, unknown>[];
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
