import { DponeError, ERROR_CODES, invalidInput, isDponeError } from '../contracts/errors.ts';
import type { EndpointSpec, Workload } from '../contracts/workload.ts';
import type { SourceConnector, TargetConnector } from '../ports/connector.ts';
import type { FaultPoints } from '../ports/fault-points.ts';
import { NO_FAULTS } from '../ports/fault-points.ts';
import { resolveRouteId, routeIdOf, urlEngine } from '../contracts/route-id.ts';
import { routeConnectorVersion as shippedConnectorVersion } from './certifications.ts';
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

/** How to open a source of one engine. */
export interface SourceEngine {
  readonly open: OpenSource;
}

/** How to open a target of one engine, and what it certifies. */
export interface TargetEngine {
  /** The fence capability the target certifies (known before it is opened). */
  readonly capability: TargetConnector['capability'];
  /** Where the target's fence lives for this workload (TargetConnector.fenceLocation), without I/O. */
  readonly fenceLocation: (workload: Workload) => Promise<string>;
  readonly open: OpenTarget;
  /** The same target written without a fence (`target.fence: none`), where the connector has one. */
  readonly openPlainTarget?: OpenTarget;
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
  postgres: {
    open: async (workload, { env }) => {
      const { PostgresSource } = await import('../adapters/connectors/postgres/postgres-source.ts');
      return PostgresSource.open({ ...serverSource(workload, env), env });
    },
  },
  mssql: {
    open: async (workload, { env }) => {
      const { MssqlSource } = await import('../adapters/connectors/mssql/mssql-source.ts');
      return MssqlSource.open(serverSource(workload, env));
    },
  },
  clickhouse: {
    open: async (workload, { env }) => {
      const { ClickHouseSource } = await import('../adapters/connectors/clickhouse/clickhouse-source.ts');
      return ClickHouseSource.open(serverSource(workload, env));
    },
  },
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
  postgres: {
    capability: 'transactional-commit-marker',
    fenceLocation: async (workload) => {
      const { postgresFence } = await import('../adapters/connectors/postgres/postgres-fence.ts');
      return postgresFence(workload.target.url, workload.target.fence_schema).location;
    },
    open: async (workload, { env, faults }) => {
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
    open: async (workload, { env, faults }) => {
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
    open: async (workload, { env, faults }) => {
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

/**
 * The workload's route: a plug-in's when an endpoint names a connector module, else the built-in
 * source and target engines of its id; ROUTE_NOT_CERTIFIED when this build has none.
 */
async function routeEntry(workload: Workload): Promise<RouteEntry> {
  if (workload.target?.connector !== undefined || workload.source?.connector !== undefined) {
    const { pluginRouteEntry } = await import('./plugin-route.ts');
    return pluginRouteEntry(workload);
  }
  return builtInRouteEntry(workload);
}

/** The built-in source and target engines of the workload's route id (ROUTE_NOT_CERTIFIED when unknown). */
function builtInRouteEntry(workload: Workload): RouteEntry {
  const parts = resolveRouteId(workload.route, workload.source?.url);
  const source =
    parts && Object.hasOwn(SOURCE_ENGINES, parts.source) ? SOURCE_ENGINES[parts.source] : undefined;
  const target =
    parts && Object.hasOwn(TARGET_ENGINES, parts.target) ? TARGET_ENGINES[parts.target] : undefined;
  if (!source || !target) {
    throw new DponeError(
      ERROR_CODES.ROUTE_NOT_CERTIFIED,
      `route "${workload.route}" has no connectors in this build (sources: ${Object.keys(SOURCE_ENGINES).join(', ')}; targets: ${Object.keys(TARGET_ENGINES).join(', ')}; a route is SOURCE-to-TARGET)`,
    );
  }
  return {
    capability: target.capability,
    fenceLocation: target.fenceLocation,
    openSource: source.open,
    openTarget: target.open,
    ...(target.openPlainTarget ? { openPlainTarget: target.openPlainTarget } : {}),
  };
}

/** The built-in target engine of the workload's route (ROUTE_NOT_CERTIFIED when unknown). */
export function routeTargetEngine(workload: Workload): string {
  builtInRouteEntry(workload);
  return resolveRouteId(workload.route, workload.source?.url)!.target;
}

/** Opens only the route's built-in target through its engine, for a reader of its fence. */
export function routeTargetOpener(workload: Workload): OpenTarget {
  return builtInRouteEntry(workload).openTarget;
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
 * The connector version the workload's route runs: a plug-in's `<name>@<version>`, or the pair
 * this runtime ships for a built-in route (null: none), for display: a certification binds the
 * connectors' code by digest (route-code.ts).
 */
export async function routeConnectorVersion(workload: Workload): Promise<string | null> {
  const entry = await routeEntry(workload);
  return entry.connectorVersion ?? shippedConnectorVersion(workload.route);
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

/**
 * The route's source and its target written WITHOUT a fence, whatever the workload's fence
 * setting: the legacy and shadow rollout modes' plain write. A route whose connector has no plain
 * write path is bad input naming the route.
 */
export async function openPlainRouteConnectors(
  workload: Workload,
  context: RouteContext,
): Promise<RouteConnectors> {
  const entry = await routeEntry(workload);
  const openPlain = entry.openPlainTarget;
  if (!openPlain)
    throw invalidInput(
      `route ${workload.route} has no plain (fenceless) write path, so the legacy and shadow modes cannot run it: the deployment policy must say enforced`,
      { field: 'route' },
    );
  return openRouteConnectors({ ...workload, target: { ...workload.target, fence: 'none' } }, context);
}
