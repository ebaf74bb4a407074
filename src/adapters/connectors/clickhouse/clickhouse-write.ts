import { DponeError, ERROR_CODES, isDponeError } from '../../../contracts/errors.ts';
import type { MutationReceipt, MutationRequest } from '../../../ports/connector.ts';
import type { FaultPoints } from '../../../ports/fault-points.ts';
import { clickHouseErrorCode, quoteName, quoteString, stagingTableName } from './clickhouse-config.ts';
import { appendFenceEvent, fenced } from './clickhouse-fence.ts';
import { taggedRows } from './clickhouse-rows.ts';
import type { TargetShape } from './clickhouse-rows.ts';
import type { ClickHouseSql } from './clickhouse-session.ts';
import { createStaging, dropStaging, listStaging, sealStaging } from './clickhouse-staging.ts';

export interface GenerationWrite {
  readonly database: string;
  readonly shape: TargetShape;
  readonly request: MutationRequest;
  readonly faults: FaultPoints;
  /** Re-reads the fence log: does it still hold the writer's epoch, with nothing committed yet? */
  readonly isCurrent: () => Promise<boolean>;
}

/**
 * Steps (3)-(8) of the protocol in clickhouse-target.ts: announce, stage, check, swap, record,
 * clean up. A failure after the staging table exists seals it before the error propagates, so the
 * fence query that follows can answer for sure (the seal waits for an ALTER still running).
 */
export async function writeGeneration(sql: ClickHouseSql, write: GenerationWrite): Promise<MutationReceipt> {
  const { request, shape, database, faults } = write;
  const { fence } = request;
  const { operationId, epoch } = fence;
  const rows = request.batch.rows.length;
  const keyed = new Set([...shape.naturalKey, shape.partitionColumn]);
  const tagged = taggedRows(request.batch, operationId, epoch, keyed);
  const partition = quoteString(request.partitionValue);
  let staged = false;
  try {
    await appendFenceEvent(sql, fence, 'staged', rows);
    if (rows === 0) return await writeEmpty(sql, write, partition);
    await faults.hit('target.stage:before');
    if (!(await createStaging(sql, database, shape.table, operationId, epoch))) {
      throw fenced(operationId, `the staging name of epoch ${epoch} is sealed or taken; nothing was written`);
    }
    staged = true;
    const staging = quoteName(`${database}.${stagingTableName(operationId, epoch)}`);
    await sql.insert(staging, tagged);
    await sql.command(`OPTIMIZE TABLE ${staging} PARTITION ${partition} FINAL`);
    await checkOnePart(sql, database, stagingTableName(operationId, epoch), staging, shape, partition, rows);
    await faults.hit('target.stage:after');
    if (!(await write.isCurrent()))
      throw fenced(operationId, `epoch ${epoch} was superseded before the swap`);
    const verb = request.strategy === 'replace-partition' ? 'REPLACE' : 'ATTACH';
    await faults.hit('target.commit:before');
    try {
      await sql.command(
        `ALTER TABLE ${quoteName(shape.table)} ${verb} PARTITION ${partition} FROM ${staging}`,
      );
    } catch (error) {
      throw await swapRefused(sql, database, operationId, epoch, error);
    }
    await faults.hit('target.commit:after');
    await appendFenceEvent(sql, fence, 'committed', rows);
    await faults.hit('target.marker:after');
    await cleanup(sql, database, operationId, epoch);
    return { applied: true, rowsWritten: rows, epoch };
  } catch (error) {
    if (staged) await sealStaging(sql, database, operationId, epoch).catch(() => undefined);
    if (isDponeError(error)) throw error;
    throw new DponeError(
      ERROR_CODES.COMMIT_UNKNOWN,
      'the ClickHouse target mutation did not return; only the fence can tell whether it committed',
      { operationId },
      { cause: error },
    );
  }
}

/** An empty batch: append writes nothing, replace-partition empties the partition; both replay harmlessly. */
async function writeEmpty(
  sql: ClickHouseSql,
  write: GenerationWrite,
  partition: string,
): Promise<MutationReceipt> {
  const { fence } = write.request;
  const { operationId, epoch } = fence;
  if (!(await write.isCurrent())) throw fenced(operationId, `epoch ${epoch} was superseded before the swap`);
  await write.faults.hit('target.commit:before');
  if (write.request.strategy === 'replace-partition') {
    await sql.command(`ALTER TABLE ${quoteName(write.shape.table)} DROP PARTITION ${partition}`);
  }
  await write.faults.hit('target.commit:after');
  await appendFenceEvent(sql, fence, 'committed', 0);
  return { applied: true, rowsWritten: 0, epoch };
}

/** One active part holding exactly the batch, all in the requested partition: the swap is then one step. */
async function checkOnePart(
  sql: ClickHouseSql,
  database: string,
  table: string,
  staging: string,
  shape: TargetShape,
  partition: string,
  rows: number,
): Promise<void> {
  const [parts] = await sql.rows<{ n: string | number }>(
    `SELECT count() AS n FROM system.parts WHERE database = ${quoteString(database)} ` +
      `AND table = ${quoteString(table)} AND active`,
  );
  const [inPartition] = await sql.rows<{ n: string | number }>(
    `SELECT count() AS n FROM ${staging} WHERE ${quoteName(shape.partitionColumn)} = ${partition}`,
  );
  if (Number(parts?.n) !== 1 || Number(inPartition?.n) !== rows) {
    throw new DponeError(
      ERROR_CODES.COMMIT_UNKNOWN,
      'the staged generation is not one part of the whole batch in its partition; nothing was attached',
    );
  }
}

/**
 * The server answered the swap with an exception (not a lost connection): it did not attach. If
 * our staging name is now sealed or gone, a newer holder fenced us: FENCED, nothing written.
 * Anything else stays an unknown outcome for the fence query to settle.
 */
async function swapRefused(
  sql: ClickHouseSql,
  database: string,
  operationId: string,
  epoch: number,
  error: unknown,
): Promise<unknown> {
  if (clickHouseErrorCode(error) === null) return error;
  let tables;
  try {
    tables = await listStaging(sql, database, operationId);
  } catch {
    return error;
  }
  const mine = tables.find((t) => t.epoch === epoch);
  if (mine === undefined || mine.sealed) {
    return fenced(
      operationId,
      `the staging table of epoch ${epoch} was sealed by a newer holder; nothing was attached`,
    );
  }
  return error;
}

/** Drops our staging table after the commit is recorded; a tombstone found there stays. */
async function cleanup(
  sql: ClickHouseSql,
  database: string,
  operationId: string,
  epoch: number,
): Promise<void> {
  try {
    const mine = (await listStaging(sql, database, operationId)).find((t) => t.epoch === epoch);
    if (mine && !mine.sealed) await dropStaging(sql, database, operationId, epoch);
  } catch {
    // Cleanup is secondary: the next holder's seal or a retention job removes it.
  }
}
