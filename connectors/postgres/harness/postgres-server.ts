import { DponeError, ERROR_CODES } from '../../../src/contracts/errors.ts';
import { startedService } from '../../../harness/env/services.ts';
import { adminQuery, setOddSessionSettings, withAdminClient } from './env/postgres-admin.ts';
import { markShared } from './env/postgres-pool.ts';
import type { ControllablePostgres, PostgresEndpoint, PostgresService } from './env/postgres-services.ts';
import type { PartCell } from '../../../harness/routes/parts.ts';
import type {
  Failover,
  LimitedDisk,
  PowerSupply,
  ServerControl,
  StalledBackends,
} from '../../../harness/routes/server-control.ts';
import { holdPowerLossPostgres } from './postgres-power-loss.ts';
import { holdFullDiskPostgres } from './postgres-full-disk.ts';

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
  /** Power-loss cells: the cut of the filesystem its data directory is on. */
  readonly power?: PowerSupply;
  /** Full-disk cells: the size-limited filesystem its data directory is on. */
  readonly disk?: LimitedDisk;
  /** Power-loss and full-disk cells: hands back this part's hold on the shared server (instead of disposing it). */
  readonly release?: () => Promise<void>;
}

export function postgresServiceOf(cell: PartCell): PostgresService {
  return startedService<PostgresService>(cell.environment, 'postgres', 'PostgreSQL');
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
  if (cell.powerLoss) {
    const { owned, power, release } = await holdPowerLossPostgres(cell, service);
    await setOddSessionSettings(owned, 'postgres');
    return { server: owned, database: 'postgres', owned, power, release };
  }
  if (cell.fullDisk) {
    const { owned, disk, release } = await holdFullDiskPostgres(cell, service);
    await setOddSessionSettings(owned, 'postgres');
    return { server: owned, database: 'postgres', owned, disk, release };
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

/**
 * Where this cell's workers connect to a part on `place`: the server itself, or in the PgBouncer
 * lane (`workload.pooler`) the pooler in front of the shared server; `upstream` is that address
 * as a Toxiproxy proxy reaches it.
 */
export async function workerAddress(
  cell: PartCell,
  place: PostgresPlace,
): Promise<{ readonly host: string; readonly port: number; readonly upstream: string }> {
  const mode = cell.options.pooler;
  if (mode === undefined || place.owned !== null)
    return { host: place.server.host, port: place.server.port, upstream: place.server.proxyUpstream };
  const service = postgresServiceOf(cell);
  if (!service.pooler)
    throw new DponeError(
      ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
      service.poolerMissing ?? `provider ${cell.environment.provider} starts no PgBouncer`,
    );
  const pooler = await service.pooler(mode);
  return { host: pooler.host, port: pooler.port, upstream: `${pooler.host}:${pooler.port}` };
}

/**
 * A dedicated server as server faults drive it (with `power` when it is on a power-loss
 * filesystem, `disk` when on a size-limited one).
 */
export function serverControl(
  owned: ControllablePostgres,
  storage: { readonly power?: PowerSupply; readonly disk?: LimitedDisk } = {},
): ServerControl {
  const { power, disk } = storage;
  return {
    label: 'PostgreSQL',
    ...(power ? { power } : {}),
    ...(disk ? { disk } : {}),
    async kill(signal) {
      if (signal === 'SIGKILL') await owned.killServer();
      else await owned.stopServer();
    },
    start: () => owned.startServer(),
    stallBackends: (options) => stallTargetBackends(owned, options),
    ...(owned.startStandby && owned.takeOver ? { prepareFailover: () => prepareFailover(owned) } : {}),
  };
}

/** The WAL receiver's pid on a standby, once it streams (polled up to 30 s). */
async function walReceiverPid(standby: PostgresEndpoint): Promise<number> {
  for (let i = 0; i < 600; i++) {
    const [result] = await adminQuery(standby, 'postgres', [
      "SELECT pid FROM pg_stat_wal_receiver WHERE status = 'streaming'",
    ]).catch(() => [undefined]);
    const pid = Number((result?.rows[0] as { pid?: unknown } | undefined)?.pid);
    if (Number.isInteger(pid) && pid > 0) return pid;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new DponeError(ERROR_CODES.ENVIRONMENT_UNAVAILABLE, 'the standby never started streaming');
}

/** Waits (up to 30 s) until the standby has received and flushed the primary's current WAL position. */
async function caughtUp(primary: PostgresEndpoint, standby: PostgresEndpoint): Promise<void> {
  const [current] = await adminQuery(primary, 'postgres', ['SELECT pg_current_wal_lsn()::text AS lsn']);
  const lsn = String((current?.rows[0] as { lsn: unknown }).lsn);
  for (let i = 0; i < 600; i++) {
    const [result] = await adminQuery(
      standby,
      'postgres',
      ['SELECT pg_last_wal_receive_lsn() >= $1::pg_lsn AS done'],
      [lsn],
    );
    if ((result?.rows[0] as { done?: unknown } | undefined)?.done === true) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new DponeError(ERROR_CODES.ENVIRONMENT_UNAVAILABLE, 'the standby did not catch up with the primary');
}

async function prepareFailover(owned: ControllablePostgres): Promise<Failover> {
  const standby = await owned.startStandby!();
  let receiver: number | null = null;
  return {
    async stopReplication() {
      receiver = await walReceiverPid(standby);
      // Everything written so far (the fence's preparation) reaches the standby first: only what
      // comes after the stop (the commit) is lost, every time, not whatever asynchronous lag had.
      await caughtUp(owned, standby);
      process.kill(receiver, 'SIGSTOP');
    },
    async failover() {
      await owned.killServer();
      // The stopped receiver dies with whatever WAL it had not read yet (the standby's postmaster
      // restarts its children and goes on recovering from what it had written).
      if (receiver !== null) process.kill(receiver, 'SIGKILL');
      await standby.promote();
      await owned.takeOver!(standby);
    },
    async [Symbol.asyncDispose]() {
      await standby[Symbol.asyncDispose]();
    },
  };
}

/**
 * The backends of the workers' target sessions on a dedicated server (application_name
 * dpone-target: only this cell's workers use it), or with `loading` the one running a COPY
 * (pg_stat_progress_copy), polled until found or `withinMs`; then SIGSTOP each (we are root or
 * the server's owner). The server itself keeps running: only those sessions stall.
 */
async function stallTargetBackends(
  owned: ControllablePostgres,
  options: { readonly loading: boolean; readonly withinMs: number },
): Promise<StalledBackends | null> {
  const sql = options.loading
    ? 'SELECT pid FROM pg_stat_progress_copy'
    : "SELECT pid FROM pg_stat_activity WHERE application_name = 'dpone-target' AND pid <> pg_backend_pid()";
  const deadline = Date.now() + options.withinMs;
  // One connection for the whole watch: a login per poll (SCRAM) is slower than a short COPY.
  const pids = await withAdminClient(owned, 'postgres', async (client) => {
    for (;;) {
      const result = await client.query(sql);
      const found = result.rows.map((row) => Number((row as { pid: unknown }).pid));
      if (found.length > 0) {
        for (const pid of found) process.kill(pid, 'SIGSTOP');
        return found;
      }
      if (Date.now() >= deadline) return [];
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  });
  if (pids.length === 0) return null;
  let resumed = false;
  return {
    pids,
    resume() {
      if (resumed) return;
      resumed = true;
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGCONT');
        } catch {
          // gone already
        }
      }
    },
  };
}

/** Drops a schema (best effort) and disposes a dedicated server. */
export async function releasePlace(place: PostgresPlace, schemas: readonly string[]): Promise<void> {
  if (place.release) {
    await place.release();
    return;
  }
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
