import { DponeError, ERROR_CODES, invalidInput, isDponeError } from '../contracts/errors.ts';
import type { EndpointSpec, Workload } from '../contracts/workload.ts';
import type { SourceConnector, TargetConnector } from '../ports/connector.ts';
import { ROUTE_CONNECTOR_VERSIONS } from './certifications.ts';
import type { FaultPoints } from '../ports/fault-points.ts';
import { NO_FAULTS } from '../ports/fault-points.ts';
import { checkSqliteFile, sqliteFilePath } from './sqlite-file.ts';
import { locateWorkloadField } from './workload-file.ts';

export { sqliteFilePath } from './sqlite-file.ts';

/** A route's source and target, opened for one workload. The caller disposes both. */
export interface RouteConnectors {
  readonly source: SourceConnector;
  readonly target: TargetConnector;
}

export interface RouteContext {
  readonly env: NodeJS.ProcessEnv;
  /** Passed to the target so its inner steps (e.g. `target.commit:before`) are fault points too. */
  readonly faults: FaultPoints;
  /** Recovery commands: only the fence is read, and opening must create nothing. */
  readonly readOnly?: boolean;
}

type OpenSource = (workload: Workload, context: RouteContext) => Promise<SourceConnector>;
type OpenTarget = (workload: Workload, context: RouteContext) => Promise<TargetConnector>;

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

/** The path of a workload's `sqlite:` endpoint, checked to be a database file of its role. */
function sqliteEndpointPath(workload: Workload, side: 'source' | 'target'): string {
  const field = `${side}.url`;
  const path = sqliteFilePath(workload[side].url, workload.file, field);
  checkSqliteFile(path, side, { field, location: locateWorkloadField(workload.file, field) });
  return path;
}

/** The password of an endpoint, read only from the environment variable the workload names. */
export function endpointPassword(
  endpoint: EndpointSpec,
  field: string,
  env: NodeJS.ProcessEnv,
): string | undefined {
  if (!endpoint.password_env) return undefined;
  const password = env[endpoint.password_env];
  if (password === undefined) {
    throw invalidInput(`${field}.password_env names ${endpoint.password_env}, which is not set`, {
      field: `${field}.password_env`,
    });
  }
  return password;
}

/**
 * Route id → how to open its connectors. Each entry imports its adapter lazily, so `dpone run` on
 * the embedded route never loads a server driver. Routes absent here are not certified to run.
 */
export const ROUTES: Readonly<Record<string, RouteEntry>> = {
  sqlite: {
    capability: 'transactional-commit-marker',
    fenceLocation: async () =>
      (await import('../adapters/connectors/sqlite/sqlite-fence.ts')).SQLITE_FENCE_LOCATION,
    openSource: async (workload) => {
      const { SqliteSource } = await import('../adapters/connectors/sqlite/sqlite-source.ts');
      const path = sqliteEndpointPath(workload, 'source');
      return SqliteSource.open(path, workload.source.table, workload.data.columns);
    },
    openTarget: async (workload, { env, faults }) => {
      // The harness's deliberately broken variants answer only under DPONE_HARNESS=1; otherwise
      // this is exactly SqliteTarget.open.
      const { sqliteTargetForHarness } =
        await import('../adapters/connectors/sqlite/sqlite-unsafe-variants.ts');
      return sqliteTargetForHarness(
        {
          path: sqliteEndpointPath(workload, 'target'),
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
        path: sqliteEndpointPath(workload, 'target'),
        table: workload.target.table,
        columns: workload.data.columns,
        naturalKey: workload.data.natural_key,
        faults,
      });
    },
  },
  postgres: {
    capability: 'transactional-commit-marker',
    fenceLocation: async (workload) => {
      const { postgresFence } = await import('../adapters/connectors/postgres/postgres-fence.ts');
      return postgresFence(workload.target.url, workload.target.fence_schema).location;
    },
    openSource: async (workload, { env }) => {
      const { PostgresSource } = await import('../adapters/connectors/postgres/postgres-source.ts');
      return PostgresSource.open(serverSource(workload, env));
    },
    openTarget: async (workload, { env, faults }) => {
      const { PostgresTarget } = await import('../adapters/connectors/postgres/postgres-target.ts');
      const { create } = workload.target;
      return PostgresTarget.open({
        ...serverTarget(workload, env),
        ...(create ? { create } : {}),
        faults,
        env,
      });
    },
    openPlainTarget: async (workload, { env, faults }) => {
      const { openPlainPostgresTarget } = await import('../adapters/connectors/postgres/postgres-target.ts');
      const { create } = workload.target;
      return openPlainPostgresTarget({
        ...serverTarget(workload, env),
        ...(create ? { create } : {}),
        faults,
      });
    },
  },
  mssql: {
    capability: 'transactional-commit-marker',
    fenceLocation: async (workload) => {
      const { mssqlFence } = await import('../adapters/connectors/mssql/mssql-fence.ts');
      return mssqlFence(workload.target.fence_schema).location;
    },
    openSource: async (workload, { env }) => {
      const { MssqlSource } = await import('../adapters/connectors/mssql/mssql-source.ts');
      return MssqlSource.open(serverSource(workload, env));
    },
    openTarget: async (workload, { env, faults }) => {
      const { MssqlTarget } = await import('../adapters/connectors/mssql/mssql-target.ts');
      return MssqlTarget.open({ ...serverTarget(workload, env), faults, env });
    },
  },
  clickhouse: {
    capability: 'staging-swap-generation',
    fenceLocation: async (workload) => {
      const { clickHouseFenceLocation } =
        await import('../adapters/connectors/clickhouse/clickhouse-config.ts');
      return clickHouseFenceLocation(workload.target.url, 'target.url');
    },
    // The source is a ClickHouse table (clickhouse://), a PostgreSQL table (postgres://) or a
    // SQLite file (sqlite:), chosen by the source URL's scheme.
    openSource: (workload, { env }) => openSourceByScheme(workload, env),
    openTarget: async (workload, { env, faults }) => {
      // Unsafe variants answer only under DPONE_HARNESS=1; otherwise this is ClickHouseTarget.open.
      const { clickhouseTargetForHarness } =
        await import('../adapters/connectors/clickhouse/clickhouse-unsafe-variants.ts');
      return clickhouseTargetForHarness(
        { ...serverTarget(workload, env), partitionColumn: workload.data.partition.column, faults },
        env,
      );
    },
  },
};

/**
 * A built-in source chosen by the source URL's scheme: `sqlite:`, `postgres://`, `mssql://` or
 * `sqlserver://`, else ClickHouse (the routes whose source may differ from their target).
 */
export async function openSourceByScheme(
  workload: Workload,
  env: NodeJS.ProcessEnv,
): Promise<SourceConnector> {
  const url = workload.source.url;
  if (url.startsWith('sqlite:')) {
    const { SqliteSource } = await import('../adapters/connectors/sqlite/sqlite-source.ts');
    const path = sqliteEndpointPath(workload, 'source');
    return SqliteSource.open(path, workload.source.table, workload.data.columns);
  }
  if (/^postgres(ql)?:\/\//.test(url)) {
    const { PostgresSource } = await import('../adapters/connectors/postgres/postgres-source.ts');
    return PostgresSource.open(serverSource(workload, env));
  }
  if (/^(mssql|sqlserver):\/\//.test(url)) {
    const { MssqlSource } = await import('../adapters/connectors/mssql/mssql-source.ts');
    return MssqlSource.open(serverSource(workload, env));
  }
  const { ClickHouseSource } = await import('../adapters/connectors/clickhouse/clickhouse-source.ts');
  return ClickHouseSource.open(serverSource(workload, env));
}

/** The options every server source takes: URL, password from its env variable, table, columns. */
function serverSource(workload: Workload, env: NodeJS.ProcessEnv) {
  const password = endpointPassword(workload.source, 'source', env);
  return {
    url: workload.source.url,
    ...(password === undefined ? {} : { password }),
    table: workload.source.table,
    columns: workload.data.columns,
  };
}

/** The options every server target takes, before its own (faults, env, partition column). */
function serverTarget(workload: Workload, env: NodeJS.ProcessEnv) {
  const password = endpointPassword(workload.target, 'target', env);
  const fenceSchema = workload.target.fence_schema;
  return {
    url: workload.target.url,
    ...(password === undefined ? {} : { password }),
    table: workload.target.table,
    columns: workload.data.columns,
    naturalKey: workload.data.natural_key,
    ...(fenceSchema === undefined ? {} : { fenceSchema }),
  };
}

/** The workload's route: a plug-in's when an endpoint names a connector module, else a built-in. */
async function routeEntry(workload: Workload): Promise<RouteEntry> {
  if (workload.target?.connector !== undefined || workload.source?.connector !== undefined) {
    const { pluginRouteEntry } = await import('./plugin-route.ts');
    return pluginRouteEntry(workload);
  }
  const entry = Object.hasOwn(ROUTES, workload.route) ? ROUTES[workload.route] : undefined;
  if (!entry) {
    throw new DponeError(
      ERROR_CODES.ROUTE_NOT_CERTIFIED,
      `route "${workload.route}" has no certified connectors in this build (available: ${Object.keys(ROUTES).join(', ')})`,
    );
  }
  return entry;
}

/**
 * The capability of the workload's target: the route's certified fence, or `none` when the workload
 * writes it without one (`target.fence: none`). Throws ROUTE_NOT_CERTIFIED for an unknown route.
 */
export async function routeCapability(workload: Workload): Promise<TargetConnector['capability']> {
  const { capability } = await routeEntry(workload);
  return workload.target.fence === 'none' ? 'none' : capability;
}

/** Where a target written without a fence keeps it: nowhere (the journal records `none`). */
const NO_FENCE_LOCATION = 'none';

/** The route's target opener for this workload: plain writes for `target.fence: none`. */
async function targetOpener(workload: Workload): Promise<OpenTarget> {
  const entry = await routeEntry(workload);
  if (workload.target.fence !== 'none') return entry.openTarget;
  if (!entry.openPlainTarget)
    throw invalidInput(`target.fence: none is not a setting of route ${workload.route}`, {
      field: 'target.fence',
    });
  return entry.openPlainTarget;
}

/**
 * The connector version the workload's route runs: a plug-in's `<name>@<version>`, or the version
 * this runtime ships for a built-in route (null: none). A certification must name exactly this.
 */
export async function routeConnectorVersion(workload: Workload): Promise<string | null> {
  const entry = await routeEntry(workload);
  return entry.connectorVersion ?? ROUTE_CONNECTOR_VERSIONS[workload.route] ?? null;
}

/**
 * Where the workload's fence lives (a safe identity), resolved from the workload alone: no
 * connection is made. Bad fence settings are INVALID_INPUT naming the field.
 */
export async function routeFenceLocation(workload: Workload): Promise<string> {
  if (workload.target.fence === 'none') return NO_FENCE_LOCATION;
  return (await routeEntry(workload)).fenceLocation(workload);
}

/** Opens only the route's target (recovery commands read its fence). The caller closes it. */
export async function openRouteTarget(
  workload: Workload,
  io: { readonly env: NodeJS.ProcessEnv },
  readOnly = false,
): Promise<TargetConnector> {
  const open = await targetOpener(workload);
  return opening(`${workload.route} target`, () =>
    open(workload, { env: io.env, faults: NO_FAULTS, readOnly }),
  );
}

async function opening<T>(what: string, open: () => Promise<T>): Promise<T> {
  try {
    return await open();
  } catch (error) {
    if (isDponeError(error)) throw error;
    // A module that failed to load or a driver error without our code: keep its text private.
    throw new DponeError(
      ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
      `the ${what} connector could not be opened`,
      {},
      {
        cause: error,
      },
    );
  }
}

/**
 * Opens the workload's source and target through the route registry. If the target fails to open,
 * the already-open source is closed before the error propagates.
 */
export async function openRouteConnectors(
  workload: Workload,
  context: RouteContext,
): Promise<RouteConnectors> {
  const entry = await routeEntry(workload);
  const openTarget = await targetOpener(workload);
  const source = await opening(`${workload.route} source`, () => entry.openSource(workload, context));
  try {
    const target = await opening(`${workload.route} target`, () => openTarget(workload, context));
    return { source, target };
  } catch (error) {
    await source.close().catch(() => undefined);
    throw error;
  }
}
