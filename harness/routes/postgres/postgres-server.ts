import { DponeError, ERROR_CODES } from '../../../src/contracts/errors.ts';
import { adminQuery, setOddSessionSettings } from '../../env/postgres-admin.ts';
import { markShared } from '../../env/postgres-pool.ts';
import type { ControllablePostgres, PostgresEndpoint, PostgresService } from '../../env/postgres-services.ts';
import type { PartCell, ServerControl } from '../parts.ts';

/** Client-side bounds the workers get, so a black-holed proxy ends their calls quickly. */
export const WORKER_TIMEOUTS = 'connect_timeout_ms=8000&query_timeout_ms=4000';

/** Partitions above this many rows get LARGE_WORKER_TIMEOUTS on the target. */
export const LARGE_PARTITION_ROWS = 100_000;
/**
 * For a partition that large: the COPY's stall bound is the query timeout, and after the last
 * chunk the server still works through everything buffered (every row through the harness's audit
 * trigger): 4 s is not a stall there. A 1,000,000-row reference run failed on a loaded machine
 * 36 s into its COPY with the 4 s bound (the fence proved nothing landed, PRE_COMMIT_FAILED).
 */
export const LARGE_WORKER_TIMEOUTS = 'connect_timeout_ms=8000&query_timeout_ms=60000';

/** The harness's own reads of a partition that large (inspector, source rows): 5 minutes, not 30 s. */
export function inspectorBounds(rows: number): { queryTimeoutMs?: number } {
  return rows > LARGE_PARTITION_ROWS ? { queryTimeoutMs: 300_000 } : {};
}

/** The target's worker bounds for a partition of `rows` source rows. */
export function targetWorkerTimeouts(rows: number): string {
  return rows > LARGE_PARTITION_ROWS ? LARGE_WORKER_TIMEOUTS : WORKER_TIMEOUTS;
}

/** A worker URL: no password (it travels in the variable the workload names). */
export function postgresUrl(
  at: { readonly host: string; readonly port: number },
  user: string,
  database: string,
  schema: string,
  extra = '',
): string {
  return `postgres://${encodeURIComponent(user)}@${at.host}:${at.port}/${database}?schema=${schema}${extra ? `&${extra}` : ''}`;
}

const settingsReady = new WeakMap<object, Promise<void>>();

/**
 * Gives the role odd session settings in the cells database, once per server (a schema per cell
 * is then cheap): every worker connection, source and target alike, starts with them, and the
 * inspector's parity shows whether values still arrive exactly.
 */
function oddSettingsOnce(key: object, server: PostgresEndpoint, database: string): Promise<void> {
  let ready = settingsReady.get(key);
  if (!ready) {
    ready = setOddSessionSettings(server, database);
    settingsReady.set(key, ready);
  }
  return ready;
}

/** Where a cell's part lives: the shared server's cells database, or a dedicated server's `postgres`. */
export interface PostgresPlace {
  readonly server: PostgresEndpoint;
  readonly database: string;
  /** The dedicated server (server faults kill it); null on the shared one. */
  readonly owned: ControllablePostgres | null;
}

export function postgresServiceOf(cell: PartCell): PostgresService {
  const service = cell.environment.services.postgres;
  if (!service)
    throw new DponeError(
      ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
      `this route needs PostgreSQL; provider ${cell.environment.provider} started none`,
    );
  return service;
}

/** The server a part of this cell uses: the shared one, or (dedicated) a fresh one of its own. */
export async function postgresPlace(cell: PartCell): Promise<PostgresPlace> {
  const service = postgresServiceOf(cell);
  if (!cell.dedicated) {
    await oddSettingsOnce(service, service.server, service.cellsDatabase);
    // Shared by every cell and never killed: the harness keeps its connections to it open.
    markShared(service.server);
    return { server: service.server, database: service.cellsDatabase, owned: null };
  }
  if (!service.dedicated)
    throw new DponeError(
      ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
      `provider ${cell.environment.provider} cannot start dedicated PostgreSQL servers for server faults`,
    );
  const owned = await service.dedicated();
  await setOddSessionSettings(owned, 'postgres');
  return { server: owned, database: 'postgres', owned };
}

/** A dedicated server as server faults drive it. */
export function serverControl(owned: ControllablePostgres): ServerControl {
  return {
    label: 'PostgreSQL',
    async kill(signal) {
      if (signal === 'SIGKILL') await owned.killServer();
      else await owned.stopServer();
    },
    start: () => owned.startServer(),
  };
}

/** Drops a schema (best effort) and disposes a dedicated server. */
export async function releasePlace(place: PostgresPlace, schemas: readonly string[]): Promise<void> {
  if (place.owned) {
    await place.owned[Symbol.asyncDispose]();
    return;
  }
  await adminQuery(
    place.server,
    place.database,
    schemas.map((schema) => `DROP SCHEMA IF EXISTS ${schema} CASCADE`),
  ).catch(() => undefined);
}
