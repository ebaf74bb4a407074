import type { FenceAnswer, FenceRef } from '../../src/ports/connector.ts';
import type { FenceLog } from './clickhouse-fence.ts';
import { decideFence, readFenceLog, readTaggedRows } from './clickhouse-fence.ts';
import type { ReplaceSettlement } from './clickhouse-replace.ts';
import { readReplacedEpochs, replaceSettlement, sealReplaced, settlingError } from './clickhouse-replace.ts';
import type { ClickHouseSql } from './clickhouse-session.ts';
import { dropTombstones, listStaging } from './clickhouse-staging.ts';

/** Where one target's fence lives: the connection, the staging database and the target table. */
export interface FenceSite {
  readonly sql: ClickHouseSql;
  /** The database staging tables and tombstones are created in (the target table's). */
  readonly database: string;
  /** `database.table`. */
  readonly table: string;
  readonly partitionColumn: string;
  /** The partition column's server type (a String key lets reads prune: clickhouse-replace.ts). */
  readonly partitionType?: string | undefined;
  /** How long a read waits for a replace's delete mutation to finish after a restart. */
  readonly settleWaitMs: number;
}

/** A fence read: the answer, the log it came from, and whether a committed replace is durable yet. */
export interface FenceReading {
  readonly answer: FenceAnswer;
  readonly log: FenceLog;
  readonly settlement: ReplaceSettlement;
}

/** Reads the live staging tables, the target's tagged rows and the log, and decides. Read-only. */
export async function readFence(site: FenceSite, operationId: string): Promise<FenceReading> {
  // Order matters: staging, then tags, then the log. A `staged` event precedes its staging
  // table, which precedes the attach, so every tag we count has its `staged` event visible.
  const staging = await listStaging(site.sql, site.database, operationId);
  const taggedRows = await readTaggedRows(site.sql, site.table, operationId);
  // After the tags: a replace that removed them wrote its record before its swap.
  const replacedEpochs = await readReplacedEpochs(site.sql, operationId);
  const log = await readFenceLog(site.sql, operationId);
  const answer = decideFence(log, {
    taggedRows,
    liveStaging: staging.some((t) => !t.sealed),
    replacedEpochs,
  });
  const settlement =
    answer.status === 'committed' && answer.committedEpoch !== null
      ? await replaceSettlement(site.sql, site.table, site, log, answer.committedEpoch, site.settleWaitMs)
      : 'durable';
  return { answer, log, settlement };
}

/**
 * The answer for a writer (prepareFence, mutate): a landed replace that is not durable yet is
 * settled first (its delete issued again); once committed, this operation's tombstones go. A
 * replace still settling after the wait is FENCE_UNAVAILABLE (retry-safe), never an answer.
 */
export async function settledAnswer(site: FenceSite, fence: FenceRef): Promise<FenceAnswer> {
  const { operationId } = fence;
  let reading = await readFence(site, operationId);
  const epoch = reading.answer.committedEpoch;
  const record = epoch === null ? undefined : reading.log.replacing.get(epoch);
  if (reading.settlement === 'unsealed' && epoch !== null && record !== undefined) {
    await sealReplaced(site.sql, site.table, site, { ...fence, epoch }, record);
    reading = await readFence(site, operationId);
  }
  if (reading.settlement !== 'durable') throw settlingError(operationId, reading.settlement);
  if (reading.answer.status === 'committed') {
    await dropTombstones(site.sql, site.database, operationId).catch(() => undefined);
  }
  return reading.answer;
}
