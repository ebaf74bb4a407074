import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DponeError, ERROR_CODES, isDponeError } from '../../src/contracts/errors.ts';
import type { Workload } from '../../src/contracts/workload.ts';
import type { HostContext } from '../../src/ports/connector-plugin.ts';
import { SQLITE_UNSAFE_CATALOGUE } from './sqlite-variant-catalogue.ts';
import { defineConnector } from '../../src/ports/connector-plugin.ts';
import { hostOf } from '../../src/ports/built-in-engine.ts';
import { checkSqliteFile, sqliteFilePath } from './sqlite-file.ts';
import { SQLITE_WORKLOAD_RULES } from './sqlite-workload.ts';
import { sqliteJournalPath, sqliteShadowPath } from './journal/sqlite-journal-url.ts';

/**
 * SQLite, registered with the runtime as a plug-in on the public contract: the one line
 * src/cli/engine-table.ts lists. The
 * embedded engine: a source, and a target that certifies a commit marker written in the data's
 * transaction (sqlite-fence.ts), both on a database file a `sqlite:` URL names. Each opener
 * imports its module lazily. Recovery reads the fence on a read-only handle and raises it with
 * the fence statements alone (sqlite-fence-reader.ts). Its commit journal (journal/), a local
 * file, is the runtime's default, opened through the engine's journal entry like the server ones.
 */
export const SQLITE_ENGINE = defineConnector({
  meta: { name: 'sqlite', version: 'built-in' },
  // `sqlite` names the route sqlite-to-sqlite.
  naming: { alias: 'route', label: 'SQLite', fileUrls: true },
  // What a record for a route into a SQLite file (its journal is one too) must also hold, listed
  // after the plain-write item (harness/gate/ decides each): issue 33's storage lines.
  acceptance: {
    plainWriteItem: 'before',
    targetItems: [
      'power-loss-journal-durable',
      'power-loss-target-durable',
      'full-disk-refused-then-one',
      'read-only-refused-then-one',
      'journal-corruption-detected',
    ],
  },
  folder: fileURLToPath(new URL('./', import.meta.url)),
  source: {
    version: 'sqlite-source/1',
    open: async (_endpoint, opened) => {
      const context = hostOf(opened);
      const { workload } = context;
      const { SqliteSource } = await import('./sqlite-source.ts');
      const path = await endpointPath(workload, 'source', context);
      return SqliteSource.open(path, workload.source.table, workload.data.columns);
    },
  },
  target: {
    version: 'sqlite-transactional-commit-marker/2',
    capability: 'transactional-commit-marker',
    fenceLocation: async () => (await import('./sqlite-fence.ts')).SQLITE_FENCE_LOCATION,
    open: async (_endpoint, opened) => {
      const context = hostOf(opened);
      const { workload } = context;
      // The harness's deliberately broken variants answer only under DPONE_HARNESS=1; otherwise
      // this is exactly SqliteTarget.open.
      const { sqliteTargetForHarness } = await import('./sqlite-unsafe-variants.ts');
      return sqliteTargetForHarness(
        {
          path: await endpointPath(workload, 'target', context),
          table: workload.target.table,
          columns: workload.data.columns,
          naturalKey: workload.data.natural_key,
          faults: opened.faults,
        },
        context.env,
      );
    },
    openPlain: async (_endpoint, opened) => {
      const context = hostOf(opened);
      const { workload } = context;
      const { openPlainSqliteTarget } = await import('./sqlite-target.ts');
      return openPlainSqliteTarget({
        path: await endpointPath(workload, 'target', context),
        table: workload.target.table,
        columns: workload.data.columns,
        naturalKey: workload.data.natural_key,
        faults: opened.faults,
      });
    },
    // The file is opened with `readOnly`: querying the fence cannot create tables or change a byte.
    openFenceReader: async (_endpoint, { workload }) => {
      const path = existingTargetPath(workload);
      const { openSqliteFenceReader } = await import('./sqlite-fence-reader.ts');
      return openSqliteFenceReader(path);
    },
    openFenceRaiser: async (_endpoint, { workload }) => {
      const path = existingTargetPath(workload);
      const { openSqliteFenceRaiser } = await import('./sqlite-fence-reader.ts');
      return openSqliteFenceRaiser(path);
    },
  },
  // The runtime's default journal: a local file (durable where its URL says ?durability=shared).
  journal: {
    kind: 'file',
    defaultUrl: (stateDir) => `sqlite://${join(stateDir, 'journal.db')}`,
    filePath: sqliteJournalPath,
    shadowFilePath: (url, cwd) => sqliteShadowPath(sqliteJournalPath(url, cwd, '--journal')),
    open: async (url, _password, options) => {
      const path = sqliteJournalPath(url, options.cwd, '--journal');
      checkSqliteFile(path, 'journal', { field: options.chosenBy }, { readOnly: options.readOnly });
      const { SqliteJournal } = await import('./journal/sqlite-journal.ts');
      return await SqliteJournal.open(path, {
        readOnly: options.readOnly,
        chosenBy: options.chosenBy,
        ...(options.warn ? { warn: options.warn } : {}),
        ...(options.leaseClock === 'caller' ? { trustStoredExpiry: true } : {}),
        ...(options.unsafeSynchronous ? { unsafeSynchronous: options.unsafeSynchronous } : {}),
      });
    },
    // Shadow records in a file beside the journal's (journal.db -> journal.shadow.db).
    openShadow: async (url, _password, options) => {
      const path = sqliteShadowPath(sqliteJournalPath(url, options.cwd, '--journal'));
      const { SqliteShadowJournal } = await import('./journal/sqlite-shadow-journal.ts');
      return SqliteShadowJournal.open(path, { timeoutMs: options.timeoutMs, create: options.create });
    },
  },
  workload: SQLITE_WORKLOAD_RULES,
  // Its storage classes', its files' syncing and its journal's flaws (sqlite-variant-catalogue.ts).
  unsafeCatalogue: SQLITE_UNSAFE_CATALOGUE,
});

/**
 * The path of a workload's `sqlite:` endpoint, checked to be a database file of its role. A refusal
 * names the field's `file:line:column` where the caller can tell it (HostContext.locate).
 */
async function endpointPath(
  workload: Workload,
  side: 'source' | 'target',
  context: HostContext,
): Promise<string> {
  const field = `${side}.url`;
  const path = sqliteFilePath(workload[side].url, workload.file, field);
  try {
    checkSqliteFile(path, side, { field });
  } catch (error) {
    if (!isDponeError(error) || context.locate === undefined) throw error;
    const location = await context.locate(field);
    throw new DponeError(error.code, error.message, { ...error.fields, location }, { cause: error.cause });
  }
  return path;
}

/** The recovery commands' target file: it must exist (reading or raising its fence creates nothing). */
function existingTargetPath(workload: Workload): string {
  const path = sqliteFilePath(workload.target.url, workload.file, 'target.url');
  if (!existsSync(path)) {
    throw new DponeError(ERROR_CODES.FENCE_UNAVAILABLE, 'the route’s SQLite target file does not exist', {
      field: '--route',
    });
  }
  return path;
}
