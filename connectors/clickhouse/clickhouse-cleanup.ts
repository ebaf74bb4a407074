import { DponeError, ERROR_CODES } from '../../src/contracts/errors.ts';
import type { FenceRef } from '../../src/ports/connector.ts';
import { checkTableName, parseClickHouseUrl, splitTable } from './clickhouse-config.ts';
import { appendFenceEvent, fenceUnavailable, readFenceLog } from './clickhouse-fence.ts';
import type { FenceSite } from './clickhouse-reading.ts';
import { readFence } from './clickhouse-reading.ts';
import type { ClickHouseSql } from './clickhouse-session.ts';
import { openClickHouseSql } from './clickhouse-session.ts';
import { dropTombstones, listStaging, sealStaging } from './clickhouse-staging.ts';

/** What an operation left in the target database: staging tables and tombstones (sealed names). */
export interface Leftover {
  readonly name: string;
  readonly kind: 'staging' | 'tombstone';
  readonly epoch: number;
}

export async function listLeftovers(
  sql: ClickHouseSql,
  database: string,
  operationId: string,
): Promise<Leftover[]> {
  return (await listStaging(sql, database, operationId)).map((t) => ({
    name: t.name,
    kind: t.sealed ? 'tombstone' : 'staging',
    epoch: t.epoch,
  }));
}

/** The holder a cleanup installs its epoch under (never a worker's: workers name themselves). */
export const CLEANUP_HOLDER = 'dpone-recovery-cleanup';

function landed(operationId: string): DponeError {
  return new DponeError(
    ERROR_CODES.DIVERGED,
    'the ClickHouse target holds a committed generation of this operation: its staging and tombstones are no leftovers of an operation that never committed; nothing was removed',
    { operationId, hint: 'inspect the operation; complete it with `dpone run` or a recovery action' },
  );
}

/**
 * Removes what an operation that never committed left behind, for `dpone recovery target-commit
 * cleanup` (the caller has checked the journal: entry FAILED_PRE_COMMIT or absent). Safe against a
 * zombie of the operation: (1) the target must not hold a committed generation of it; (2) a new
 * epoch is installed above every other, so no older holder passes its check before the swap; (3)
 * every live staging table is sealed (a DROP waits for a swap holding it, so after the seal nothing
 * can land from it); (4) the fence is read again (a swap that got in first: DIVERGED, nothing
 * removed); (5) the tombstones are dropped and a `cleanup` event records who and why. Returns the
 * names removed.
 */
export async function cleanupOperation(
  site: FenceSite,
  operationId: string,
  audit: { readonly actor: string; readonly reason: string },
): Promise<string[]> {
  const { sql, database } = site;
  if ((await readFence(site, operationId)).answer.status === 'committed') throw landed(operationId);
  const log = await readFenceLog(sql, operationId);
  const before = await listLeftovers(sql, database, operationId);
  if (log.maxEpoch === null && before.length === 0) return [];
  const fence: FenceRef = {
    operationId,
    epoch: Math.max(log.maxEpoch ?? 0, ...before.map((l) => l.epoch)) + 1,
    intentDigest: log.intentDigest ?? '',
    holder: CLEANUP_HOLDER,
  };
  if (log.maxEpoch !== null) await appendFenceEvent(sql, fence, 'epoch', 0);
  for (const leftover of before) {
    if (leftover.kind === 'staging') await sealStaging(sql, database, operationId, leftover.epoch);
  }
  if ((await readFence(site, operationId)).answer.status === 'committed') throw landed(operationId);
  await dropTombstones(sql, database, operationId);
  const removed = before.map((l) => l.name);
  if (log.maxEpoch !== null) {
    await appendFenceEvent(sql, fence, 'cleanup', removed.length, JSON.stringify({ ...audit, removed }));
  }
  return removed;
}

/** A route target's leftovers, listed (read-only connection) or cleaned up (writable). */
export interface ClickHouseLeftovers extends AsyncDisposable {
  list(operationId: string): Promise<Leftover[]>;
  cleanup(operationId: string, audit: { readonly actor: string; readonly reason: string }): Promise<string[]>;
}

export async function openClickHouseLeftovers(options: {
  readonly url: string;
  readonly password?: string;
  readonly table: string;
  readonly partitionColumn: string;
  readonly readOnly: boolean;
}): Promise<ClickHouseLeftovers> {
  checkTableName(options.table, 'target.table');
  const endpoint = parseClickHouseUrl(options.url, options.password, 'target.url');
  const sql = await openClickHouseSql(endpoint, { readOnly: options.readOnly });
  const where = splitTable(options.table, endpoint.database);
  const site: FenceSite = {
    sql,
    database: where.database,
    table: `${where.database}.${where.table}`,
    partitionColumn: options.partitionColumn,
    settleWaitMs: 2_000,
  };
  const unavailable = (operationId: string, error: unknown) =>
    error instanceof DponeError ? error : fenceUnavailable(operationId, error);
  return {
    list: (operationId) =>
      listLeftovers(sql, site.database, operationId).catch((error: unknown) => {
        throw unavailable(operationId, error);
      }),
    cleanup: (operationId, audit) =>
      cleanupOperation(site, operationId, audit).catch((error: unknown) => {
        throw unavailable(operationId, error);
      }),
    [Symbol.asyncDispose]: () => sql.close(),
  };
}
