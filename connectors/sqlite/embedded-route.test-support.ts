import { MarkerTarget } from '../../src/adapters/connectors/marker-fence/marker-target.ts';
import { flawedProtocol } from '../../src/adapters/connectors/marker-fence/marker-unsafe-target.ts';
import type { SourceConnector, TargetConnector } from '../../src/ports/connector.ts';
import type { TargetCommitJournalPort } from '../../src/ports/journal.ts';
import type { TargetFlaws } from '../../src/ports/unsafe-variants.ts';
import { SqliteJournal } from './journal/sqlite-journal.ts';
import { SqliteSource } from './sqlite-source.ts';
import type { SqliteTargetOptions } from './sqlite-target.ts';
import { SqliteTarget, openTargetDatabase } from './sqlite-target.ts';
import { sqliteDialect } from './sqlite-dialect.ts';
import { SQLITE_FENCE_LOCATION } from './sqlite-fence.ts';
import { UNSAFE_SQLITE_VARIANTS, sqliteTargetForHarness } from './sqlite-unsafe-variants.ts';

/**
 * The embedded engine's route for the core's executor tests, as src/core/fixtures/embedded-route.ts
 * loads it from the folder the engine table names: its source and target on database files, the
 * target as certified, as one of its unsafe variants, or on the marker-fence kernel with flaws of
 * the protocol itself; and its durable file journal.
 */

/** Where the fence lives on this engine's target (TargetConnector.fenceLocation). */
export const FENCE_LOCATION = SQLITE_FENCE_LOCATION;

/** The source table `table` of the database file at `path`, read as `columns`. */
export function openSource(
  path: string,
  table: string,
  columns: readonly string[],
): Promise<SourceConnector> {
  return SqliteSource.open(path, table, columns);
}

/**
 * The target on `options` (a database file and its table): certified, or the unsafe variant named
 * `unsafe`, or, with `flaws`, the marker-fence kernel on this engine's dialect with those flaws.
 */
export async function openTarget(
  options: SqliteTargetOptions,
  how: { readonly unsafe?: string; readonly flaws?: TargetFlaws; readonly identity?: string } = {},
): Promise<TargetConnector> {
  if (how.flaws)
    return new MarkerTarget(
      sqliteDialect(openTargetDatabase(options), options.table),
      { identity: how.identity!, fenceLocation: SQLITE_FENCE_LOCATION },
      flawedProtocol(how.flaws),
    );
  if (how.unsafe) return UNSAFE_SQLITE_VARIANTS[how.unsafe]!(options);
  return SqliteTarget.open(options);
}

/**
 * The target a process the harness started opens (src/core/fixtures/embedded-worker.ts):
 * DPONE_UNSAFE_VARIANT selects an unsafe variant under DPONE_HARNESS=1, otherwise the certified one.
 */
export function openTargetForHarness(options: SqliteTargetOptions): Promise<TargetConnector> {
  return sqliteTargetForHarness(options);
}

/** The durable file journal at `path` (created when absent). */
export function openJournal(path: string): Promise<TargetCommitJournalPort & AsyncDisposable> {
  return SqliteJournal.open(path);
}
