import { DponeError, ERROR_CODES } from '../../src/contracts/errors.ts';
import type { FenceRef, LoadStrategy } from '../../src/ports/connector.ts';
import { EPOCH_COLUMN, OP_COLUMN, quoteName, quoteString, stagingTableName } from './clickhouse-config.ts';
import { FENCE_TABLE, appendFenceEvent } from './clickhouse-fence.ts';
import type { ClickHouseSql } from './clickhouse-session.ts';

/**
 * Partition claims: one swap into a partition at a time while a replace is involved.
 *
 * Why: a replace deletes what it replaced by the generation tags it reads just before its swap
 * (clickhouse-replace.ts). When operation X swaps between Y's read and Y's swap, Y's delete never
 * names X's tags; 18.16 keeps X's replaced part only "outdated" in memory, and a restart brings it
 * back for good next to Y's rows (issue 29: both operations COMPLETE, two copies). The same holds
 * for an append that lands in that window.
 *
 * How: before its swap, a generation appends a `claim` event (table, partition, mode) to the fence
 * log, THEN reads the other operations' claims on the same partition. Two writers that both write
 * then read cannot both miss each other (the log is one server's table: an acknowledged INSERT is
 * visible to every later SELECT), so of two overlapping swaps at least one sees the other. It
 * refuses when it sees an OPEN claim that conflicts with it (a replace conflicts with any claim;
 * an append only with a replace's). A replace reads the partition's tags only after this check.
 *
 * A claim (operation, epoch) is open while it can still land or has landed unsettled:
 *   - closed by its `committed` event, or (replace) its `settled` event;
 *   - else, its generation's rows in the partition: an append has landed (closed), a replace is
 *     landed but not yet settled (open: its replaced parts could still come back);
 *   - else, a live (unsealed) staging table of that epoch: it could still swap (open);
 *   - else it can never land (sealed, or dropped after a refusal): closed.
 * A refusing writer seals its own staging before it returns, so its claim closes with it. A writer
 * that died after its claim keeps its partition refused until its operation runs again (its next
 * holder seals or settles that epoch) or an operator cleans it up (`dpone recovery target-commit
 * cleanup`): the refusal names the operation.
 */
export type ClaimMode = 'replace' | 'append';

export interface PartitionClaim {
  readonly table: string;
  readonly partition: string;
  readonly mode: ClaimMode;
}

function claimDetail(claim: PartitionClaim): string {
  return JSON.stringify({ table: claim.table, partition: claim.partition, mode: claim.mode });
}

export function claimModeOf(strategy: LoadStrategy): ClaimMode {
  return strategy === 'replace-partition' ? 'replace' : 'append';
}

type ClaimRow = { operation_id: string; epoch: string | number; detail: string };

/** Claims (other than `own` operation's) that could still land in the partition, or landed unsettled. */
export async function openClaims(
  sql: ClickHouseSql,
  database: string,
  claim: PartitionClaim,
  own: string,
): Promise<{ operationId: string; epoch: number; mode: ClaimMode }[]> {
  const details = (['replace', 'append'] as const).map((mode) =>
    quoteString(claimDetail({ ...claim, mode })),
  );
  const rows = await sql.rows<ClaimRow>(
    `SELECT operation_id, epoch, detail FROM ${FENCE_TABLE} WHERE kind = 'claim' ` +
      `AND detail IN (${details.join(', ')}) AND operation_id != ${quoteString(own)}`,
  );
  const candidates = rows.map((r) => ({
    operationId: r.operation_id,
    epoch: Number(r.epoch),
    mode: (JSON.parse(r.detail) as { mode: ClaimMode }).mode,
  }));
  if (candidates.length === 0) return [];
  const key = (op: string, epoch: number) => `${op}\u0000${epoch}`;
  const ops = [...new Set(candidates.map((c) => c.operationId))].map(quoteString).join(', ');
  const closing = await sql.rows<{ operation_id: string; epoch: string | number; kind: string }>(
    `SELECT operation_id, epoch, kind FROM ${FENCE_TABLE} WHERE operation_id IN (${ops}) ` +
      `AND kind IN ('committed', 'settled')`,
  );
  const closed = new Set(closing.map((c) => key(c.operation_id, Number(c.epoch))));
  const landed = new Set(
    (
      await sql.rows<{ o: string; e: string | number }>(
        `SELECT DISTINCT ${OP_COLUMN} AS o, ${EPOCH_COLUMN} AS e FROM ${quoteName(claim.table)} ` +
          `WHERE ${OP_COLUMN} IN (${ops})`,
      )
    ).map((r) => key(r.o, Number(r.e))),
  );
  const names = candidates.map((c) => quoteString(stagingTableName(c.operationId, c.epoch))).join(', ');
  const live = new Set(
    (
      await sql.rows<{ name: string }>(
        `SELECT name FROM system.tables WHERE database = ${quoteString(database)} ` +
          `AND name IN (${names}) AND engine != 'Log'`,
      )
    ).map((r) => r.name),
  );
  return candidates.filter((c) => {
    const k = key(c.operationId, c.epoch);
    if (closed.has(k)) return false;
    if (landed.has(k)) return c.mode === 'replace';
    return live.has(stagingTableName(c.operationId, c.epoch));
  });
}

/**
 * Claims the partition for the caller's swap, or refuses (retry-safe, nothing attached) while
 * another operation's claim that conflicts with it is open. The caller seals its staging on the
 * refusal, which closes its own claim.
 */
export async function claimPartition(
  sql: ClickHouseSql,
  database: string,
  fence: FenceRef,
  claim: PartitionClaim,
): Promise<void> {
  await appendFenceEvent(sql, fence, 'claim', 0, claimDetail(claim));
  const open = (await openClaims(sql, database, claim, fence.operationId)).filter(
    (c) => claim.mode === 'replace' || c.mode === 'replace',
  );
  if (open.length === 0) return;
  const other = open[0]!;
  throw new DponeError(
    ERROR_CODES.PARTITION_BUSY,
    `another operation's ${other.mode} of this partition is in flight or not yet settled ` +
      `(operation ${other.operationId}, epoch ${other.epoch}); nothing was attached`,
    {
      operationId: fence.operationId,
      hint:
        'retry once that operation has finished: run it again if it died (its next run settles it), or ' +
        'remove what it left with `dpone recovery target-commit cleanup` if it never committed',
    },
  );
}
