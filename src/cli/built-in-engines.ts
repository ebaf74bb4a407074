import { DponeError, invalidInput, isDponeError } from '../contracts/errors.ts';
import type { Workload } from '../contracts/workload.ts';
import type { SourceConnector, TargetConnector } from '../ports/connector.ts';
import { NO_FAULTS } from '../ports/fault-points.ts';
import type {
  BuiltInEngine,
  JournalEngine,
  OpenSource,
  OpenTarget,
  SourceEngine,
  TargetEngine,
} from '../ports/built-in-engine.ts';
import { CLICKHOUSE_ENGINE } from '../../connectors/clickhouse/engine.ts';
import { MSSQL_ENGINE } from '../../connectors/mssql/engine.ts';
import { POSTGRES_ENGINE } from '../../connectors/postgres/engine.ts';
import { routeIdOf, urlEngine } from '../contracts/route-id.ts';
import { checkSqliteFile, sqliteFilePath } from './sqlite-file.ts';
import { locateWorkloadField } from './workload-file.ts';

/**
 * The built-in engines that live in one folder of their own (`connectors/<engine>/`), each
 * registered by its folder's engine.ts: one line per engine. The engines still spread over
 * src/adapters/ are written out in the two tables below until they move.
 */
const FOLDER_ENGINES: Readonly<Record<string, BuiltInEngine>> = {
  postgres: POSTGRES_ENGINE,
  mssql: MSSQL_ENGINE,
  clickhouse: CLICKHOUSE_ENGINE,
};

/** The sources (or targets) of the folder engines that have one, by engine name. */
function enginesOf<Side extends keyof BuiltInEngine>(
  engines: Readonly<Record<string, BuiltInEngine>>,
  side: Side,
): Record<string, NonNullable<BuiltInEngine[Side]>> {
  return Object.fromEntries(
    Object.entries(engines).flatMap(([name, engine]) => (engine[side] ? [[name, engine[side]]] : [])),
  );
}

/**
 * The journal kept on a folder engine's server (`mssql://…` → MSSQL), or undefined where the
 * engine keeps none; src/cli/journal-url.ts maps a URL scheme to the engine's name.
 */
export function engineJournal(engine: string): JournalEngine | undefined {
  return Object.hasOwn(FOLDER_ENGINES, engine) ? FOLDER_ENGINES[engine]!.journal : undefined;
}

/** A route's source and target, opened for one workload. The caller disposes both. */
export interface RouteConnectors {
  readonly source: SourceConnector;
  readonly target: TargetConnector;
}

/** A route's source and target, looked up from its id (built-in engines) or its plug-in module. */
export interface RouteEntry {
  /** The fence capability the route's target certifies (known before it is opened). */
  readonly capability: TargetConnector['capability'];
  /** Where the route's fence lives for this workload (TargetConnector.fenceLocation), without I/O. */
  readonly fenceLocation: (workload: Workload) => Promise<string>;
  readonly openSource: OpenSource;
  readonly openTarget: OpenTarget;
  /** The same target written without a fence (`target.fence: none`), where the connector has one. */
  readonly openPlainTarget?: OpenTarget;
  /** A plug-in route's connector version (`<name>@<version>`); built-ins: certifications.ts. */
  readonly connectorVersion?: string;
}

/**
 * The path of a workload's `sqlite:` endpoint, checked to be a database file of its role. A refusal
 * names the field's `file:line:column` (looked up only then: it reads the file again).
 */
async function sqliteEndpointPath(workload: Workload, side: 'source' | 'target'): Promise<string> {
  const field = `${side}.url`;
  const path = sqliteFilePath(workload[side].url, workload.file, field);
  try {
    checkSqliteFile(path, side, { field });
  } catch (error) {
    if (!isDponeError(error)) throw error;
    const location = await locateWorkloadField(workload.file, field);
    throw new DponeError(error.code, error.message, { ...error.fields, location }, { cause: error.cause });
  }
  return path;
}

/**
 * Source engine → how to open it. A route is any source with any target (`SOURCE-to-TARGET`):
 * every source yields rows the targets write as they are. Each entry imports its adapter lazily,
 * so `dpone run` on the embedded route never loads a server driver.
 */
export const SOURCE_ENGINES: Readonly<Record<string, SourceEngine>> = {
  sqlite: {
    open: async (workload) => {
      const { SqliteSource } = await import('../adapters/connectors/sqlite/sqlite-source.ts');
      const path = await sqliteEndpointPath(workload, 'source');
      return SqliteSource.open(path, workload.source.table, workload.data.columns);
    },
  },
  ...enginesOf(FOLDER_ENGINES, 'source'),
};

/** Target engine → how to open it. Unsafe variants answer only under DPONE_HARNESS=1. */
export const TARGET_ENGINES: Readonly<Record<string, TargetEngine>> = {
  sqlite: {
    capability: 'transactional-commit-marker',
    fenceLocation: async () =>
      (await import('../adapters/connectors/sqlite/sqlite-fence.ts')).SQLITE_FENCE_LOCATION,
    open: async (workload, { env, faults }) => {
      // The harness's deliberately broken variants answer only under DPONE_HARNESS=1; otherwise
      // this is exactly SqliteTarget.open.
      const { sqliteTargetForHarness } =
        await import('../adapters/connectors/sqlite/sqlite-unsafe-variants.ts');
      return sqliteTargetForHarness(
        {
          path: await sqliteEndpointPath(workload, 'target'),
          table: workload.target.table,
          columns: workload.data.columns,
          naturalKey: workload.data.natural_key,
          faults,
        },
        env,
      );
    },
    openPlainTarget: async (workload, { faults }) => {
      const { openPlainSqliteTarget } = await import('../adapters/connectors/sqlite/sqlite-target.ts');
      return openPlainSqliteTarget({
        path: await sqliteEndpointPath(workload, 'target'),
        table: workload.target.table,
        columns: workload.data.columns,
        naturalKey: workload.data.natural_key,
        faults,
      });
    },
  },
  ...enginesOf(FOLDER_ENGINES, 'target'),
};

/** Every route this build can run: each source engine with each target engine. */
export function runtimeRouteIds(): string[] {
  return Object.keys(SOURCE_ENGINES).flatMap((source) =>
    Object.keys(TARGET_ENGINES).map((target) => routeIdOf(source, target)),
  );
}

/**
 * A built-in source chosen by the source URL's scheme (`sqlite:`, `postgres://`, `mssql://` or
 * `sqlserver://`, `clickhouse://`): a plug-in target's source when no source connector is named.
 */
export async function openSourceByScheme(
  workload: Workload,
  env: NodeJS.ProcessEnv,
): Promise<SourceConnector> {
  const engine = urlEngine(workload.source.url);
  if (engine === null || !Object.hasOwn(SOURCE_ENGINES, engine))
    throw invalidInput(
      `source.url names no built-in source (sources: ${Object.keys(SOURCE_ENGINES).join(', ')}); name a source.connector`,
      { field: 'source.url' },
    );
  return SOURCE_ENGINES[engine]!.open(workload, { env, faults: NO_FAULTS });
}
