import { DponeError, ERROR_CODES } from '../../src/contracts/errors.ts';
import type { FenceRef } from '../../src/ports/connector.ts';
import {
  CH_ERRORS,
  EPOCH_COLUMN,
  OP_COLUMN,
  clickHouseErrorCode,
  quoteName,
  quoteString,
  splitTable,
} from './clickhouse-config.ts';
import type { FenceLog, ReplaceRecord } from './clickhouse-fence.ts';
import { FENCE_TABLE, appendFenceEvent, replaceRecordOf } from './clickhouse-fence.ts';
import type { ClickHouseSql } from './clickhouse-session.ts';

/**
 * Making REPLACE PARTITION durable. ClickHouse 18.16 applies `REPLACE PARTITION p FROM staging`
 * atomically for readers, but it only marks the replaced parts "outdated" IN MEMORY; their files
 * stay until the table's next cleanup of old parts deletes them: seconds (2.6–10.5 s measured on
 * 18.16.1, the background task's idle back-off; REPLACE marks them for removal at once, without
 * `old_parts_lifetime`'s 480 s), longer while a query still reads them. A restart in that window
 * (SIGKILL, and also a clean SIGTERM) loads them again as active parts: the old rows come back
 * next to the new ones. (`DROP PARTITION` has the same window.) Current releases cover the dropped
 * range on disk; 18.16 does not, and a server setting is nothing a connector can rely on.
 *
 * So a replace-partition generation also makes what it replaced unable to come back, before it
 * records `settled`:
 *   1. before the swap, record which generation tags the partition holds and the partition's id
 *      (`replacing` event);
 *   2. REPLACE PARTITION (readers see old → new in one step);
 *   3. remove the replaced parts' files now: `ALTER TABLE … DETACH PARTITION ID '<no partition>'`
 *      detaches nothing (no table has a partition of that id) and, on 18.16, ends by deleting the
 *      table's removable outdated parts from disk in the statement itself
 *      (`clearOldPartsFromFilesystem`), the replaced ones among them. Then one read checks that
 *      system.parts lists no inactive part of the partition any more (a part still listed still
 *      has its files) and that no replaced row is visible: only then can no restart bring a
 *      replaced row back, and `settled` is logged. This touches no other partition's part
 *      (issue 37: the mutation below gave every part of the table a new version).
 *      Otherwise (a query still reading an old part, merge leftovers of the partition with their
 *      own `old_parts_lifetime`, a restart that already brought them back, a record without the
 *      id, a server that cleans up later): after a few tries, the rows are deleted with a
 *      MUTATION, `ALTER TABLE … DELETE WHERE <partition> AND <one of those tags>`, which 18.16
 *      stores on disk (`mutation_N.txt`) before the ALTER returns and applies to every part older
 *      than it, including parts a restart resurrects; then `settled`.
 * The predicate names tags, not "everything but us", so rows another operation appends to the
 * partition later are never touched. A crash between 2 and 3 leaves the replace unsettled: the
 * next holder does 3 itself before it trusts the generation (queryFence meanwhile refuses to
 * answer `committed`). After a restart with a mutation, the resurrected rows are visible until it
 * has run again (seconds); the fence waits for it and otherwise answers "not yet"
 * (FENCE_UNAVAILABLE). Assumption (documented): no other writer loads untagged rows into the
 * partition between the swap and step 3.
 */

export type ReplaceSettlement = 'durable' | 'unsealed' | 'settling';

function tagCondition([op, epoch]: readonly [string, number]): string {
  return `(${OP_COLUMN} = ${quoteString(op)} AND ${EPOCH_COLUMN} = ${epoch})`;
}

/** The target's partition column and, once read from the server, its type. */
export interface PartitionKey {
  readonly partitionColumn: string;
  readonly partitionType?: string | undefined;
}

/**
 * Rows of one partition. `toString(column) = value` holds for a column of any type, but 18.16 cannot
 * prune parts with it (toString is not a monotonic function to its key analysis), so every read and
 * the delete mutation's per-part check opened every part of the table (300 other partitions made a
 * replace's reads ~10× slower, bench/clickhouse-replace.ts). For a String column, `column = value`
 * is the same condition and the partition's min/max index skips the other partitions' parts; other
 * types keep the one condition (a string literal against a number is not valid on 18.16).
 */
function inPartition(key: PartitionKey, partition: string): string {
  const column = quoteName(key.partitionColumn);
  const any = `toString(${column}) = ${quoteString(partition)}`;
  return key.partitionType === 'String' ? `${any} AND ${column} = ${quoteString(partition)}` : any;
}

/** The rows a replace removed: in its partition and carrying one of the recorded tags; null if none. */
export function replacedPredicate(key: PartitionKey, record: ReplaceRecord): string | null {
  if (record.replaced.length === 0) return null;
  return `${inPartition(key, record.partition)} AND (${record.replaced.map(tagCondition).join(' OR ')})`;
}

/**
 * What a replace of `partition` is about to remove, read in one statement: the generation tags in
 * the partition right now (legacy rows carry `('', 0)`) and the server's id of the partition
 * (absent when it holds no row, or — never seen — rows of several ids).
 */
export async function readReplaceRecord(
  sql: ClickHouseSql,
  table: string,
  key: PartitionKey,
  partition: string,
): Promise<ReplaceRecord> {
  const rows = await sql.rows<{ o: string; e: string | number; p: string }>(
    `SELECT DISTINCT ${OP_COLUMN} AS o, ${EPOCH_COLUMN} AS e, _partition_id AS p FROM ${quoteName(table)} ` +
      `WHERE ${inPartition(key, partition)}`,
  );
  const tags = new Map<string, [string, number]>();
  for (const r of rows) tags.set(JSON.stringify([r.o, Number(r.e)]), [r.o, Number(r.e)]);
  const ids = new Set(rows.map((r) => r.p));
  const [id] = ids;
  return {
    partition,
    replaced: [...tags.values()],
    ...(ids.size === 1 && id !== undefined ? { partition_id: id } : {}),
  };
}

async function countWhere(sql: ClickHouseSql, table: string, predicate: string): Promise<number> {
  const [row] = await sql.rows<{ n: string | number }>(
    `SELECT count() AS n FROM ${quoteName(table)} WHERE ${predicate}`,
  );
  return Number(row?.n ?? 0);
}

async function pendingMutations(sql: ClickHouseSql, table: string): Promise<number> {
  const { database, table: name } = splitTable(table, '');
  const [row] = await sql.rows<{ n: string | number }>(
    `SELECT count() AS n FROM system.mutations WHERE database = ${quoteString(database)} ` +
      `AND table = ${quoteString(name)} AND is_done = 0`,
  );
  return Number(row?.n ?? 0);
}

function unreadable(operationId: string): DponeError {
  return new DponeError(
    ERROR_CODES.FENCE_UNAVAILABLE,
    'the fence record of a replace-partition generation is unreadable; the replace cannot be settled',
    { operationId, hint: 'inspect the _dpone_fence rows of this operation' },
  );
}

/**
 * The partition id step 3 detaches: server partition ids are digits and `-` (integer and date
 * keys), 32 hex digits (any other key) or `all` (no key), so no table has a partition of this id
 * and the statement detaches nothing (were one ever there, DETACH keeps its parts in `detached/`).
 */
export const NO_PARTITION_ID = 'dponenopartition';

/** How often step 3 asks the server to delete the replaced parts' files before it deletes by mutation. */
const REMOVAL_TRIES = 4;
const REMOVAL_RETRY_MS = 50;

/**
 * Step 3's partition-local way: has the server deleted the files of every part the swap replaced?
 * Asks it to (DETACH of no partition, see above), then reads the partition's inactive parts and
 * the replaced rows still visible. True only when none of either is left; false at once when
 * replaced rows are visible (parts a restart brought back: only the mutation removes them), and
 * after a few tries while inactive parts stay listed. Run before a mutation is sent, the read also
 * checks the predicate (18.16 retries a failing mutation forever, so a bad one is never sent).
 */
async function replacedPartsRemoved(
  sql: ClickHouseSql,
  table: string,
  record: ReplaceRecord,
  predicate: string,
): Promise<boolean> {
  if (record.partition_id === undefined) {
    await countWhere(sql, table, predicate);
    return false;
  }
  const { database, table: name } = splitTable(table, '');
  for (let tries = 1; ; tries++) {
    await sql.command(`ALTER TABLE ${quoteName(table)} DETACH PARTITION ID ${quoteString(NO_PARTITION_ID)}`);
    const [row] = await sql.rows<{ inactive: string | number; visible: string | number }>(
      `SELECT (SELECT count() FROM system.parts WHERE database = ${quoteString(database)} ` +
        `AND table = ${quoteString(name)} AND partition_id = ${quoteString(record.partition_id)} AND NOT active) AS inactive, ` +
        `(SELECT count() FROM ${quoteName(table)} WHERE ${predicate}) AS visible`,
    );
    if (Number(row?.visible ?? 1) > 0) return false;
    if (Number(row?.inactive ?? 1) === 0) return true;
    if (tries >= REMOVAL_TRIES) return false;
    await new Promise((resolve) => setTimeout(resolve, REMOVAL_RETRY_MS));
  }
}

/**
 * Step 3: makes the replaced rows unable to come back — their parts' files deleted (checked), or
 * else the rows deleted with a durable mutation — then records `settled` for `settles.epoch` (the
 * generation's epoch; intent and holder are the caller's).
 */
export async function sealReplaced(
  sql: ClickHouseSql,
  table: string,
  key: PartitionKey,
  settles: FenceRef,
  record: ReplaceRecord,
): Promise<void> {
  if (record.partition === '' && record.replaced.length === 0) throw unreadable(settles.operationId);
  const predicate = replacedPredicate(key, record);
  if (predicate !== null && !(await replacedPartsRemoved(sql, table, record, predicate))) {
    await sql.command(`ALTER TABLE ${quoteName(table)} DELETE WHERE ${predicate}`);
  }
  await appendFenceEvent(sql, settles, 'settled', 0);
}

const POLL_MS = 200;

/**
 * Whether a committed generation's replace is durable: `durable` (not a replace, or settled and
 * no replaced row visible), `unsealed` (step 3 never happened, or its mutation is gone while old
 * rows are back: seal again), `settling` (its mutation is still removing rows a restart brought
 * back after `waitMs`).
 */
export async function replaceSettlement(
  sql: ClickHouseSql,
  table: string,
  key: PartitionKey,
  log: FenceLog,
  epoch: number,
  waitMs: number,
): Promise<ReplaceSettlement> {
  const record = log.replacing.get(epoch);
  if (record === undefined) return 'durable';
  if (!log.settled.has(epoch)) return 'unsealed';
  const predicate = replacedPredicate(key, record);
  if (predicate === null) return 'durable';
  const deadline = Date.now() + waitMs;
  for (;;) {
    // Pending first, then the rows: read the other way round, a mutation finishing between the two
    // reads showed rows it was about to delete and no mutation left to delete them ('unsealed' for
    // a replace that was settling; seen under load right after a restart).
    const pending = await pendingMutations(sql, table);
    if ((await countWhere(sql, table, predicate)) === 0) return 'durable';
    if (pending === 0) return 'unsealed';
    if (Date.now() >= deadline) return 'settling';
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** The answer while a replace is not yet durable: retry-safe, nothing decided. */
export function settlingError(operationId: string, settlement: ReplaceSettlement): DponeError {
  return new DponeError(
    ERROR_CODES.FENCE_UNAVAILABLE,
    settlement === 'unsealed'
      ? 'the partition swap landed but the rows it replaced are not yet deleted durably (a server restart could bring them back)'
      : 'the rows a partition swap replaced came back after a server restart and are still being deleted',
    {
      operationId,
      hint: 'retry: the next `dpone run` settles the replace before it records the commit',
    },
  );
}

/**
 * The epochs of `operationId` that other operations' replace records name as removed from a
 * partition (see decideFence). A record names tags it read in the partition before its swap, so
 * each named epoch had landed.
 */
export async function readReplacedEpochs(sql: ClickHouseSql, operationId: string): Promise<Set<number>> {
  const rows = await sql
    .rows<{ detail: string }>(
      `SELECT detail FROM ${FENCE_TABLE} WHERE kind = 'replacing' AND operation_id != ${quoteString(operationId)} ` +
        `AND position(detail, ${quoteString(JSON.stringify(operationId))}) > 0`,
    )
    .catch((error: unknown) => {
      if (clickHouseErrorCode(error) === CH_ERRORS.UNKNOWN_TABLE) return [];
      throw error;
    });
  const epochs = new Set<number>();
  for (const row of rows) {
    const record = replaceRecordOf(row.detail);
    for (const [op, epoch] of record?.replaced ?? []) if (op === operationId) epochs.add(epoch);
  }
  return epochs;
}
