import { DponeError, ERROR_CODES } from '../../../contracts/errors.ts';
import type { FenceAnswer, FenceEvidence, FenceRef } from '../../../ports/connector.ts';
import type { MarkerDialect, SqlResult, SqlRunner } from './marker-dialect.ts';
import type { FenceSql } from './marker-sql.ts';

/**
 * The transactional commit marker, written once for every SQL target: one row per operation in
 * the target database. `epoch` is the newest lease epoch that installed itself; the row turns
 * `committed` in the same transaction as the data, and only while it still holds the writer's
 * epoch. The guard UPDATE is the mutation's first statement, so it holds the row lock: a new holder
 * raising the epoch waits for our COMMIT or ROLLBACK, and a writer whose epoch was raised first
 * matches zero rows.
 */
export const FENCE_TABLE = '_dpone_fence';

export function fenced(operationId: string, message: string): DponeError {
  return new DponeError(ERROR_CODES.FENCED, message, { operationId });
}

/**
 * Inserts the fence, or raises its epoch to `fence.epoch` (never lowers it, never touches the
 * committed status), in one transaction. Refuses with FENCED when a newer epoch holds it.
 * `raiseEpoch: false` is the unsafe "ignore-epoch" behaviour (insert only).
 */
export async function installFence(
  dialect: MarkerDialect,
  fence: FenceRef,
  nowMs: number,
  raiseEpoch = true,
): Promise<FenceEvidence> {
  const { sql } = dialect;
  const statements = [sql.insertIfAbsent, ...(raiseEpoch ? [sql.raiseEpoch] : []), sql.select];
  const params = { operation_id: fence.operationId, epoch: fence.epoch, now_ms: nowMs };
  const answer = toAnswer(await dialect.batch(statements, params));
  if (raiseEpoch && answer.epoch !== null && answer.epoch > fence.epoch) {
    throw fenced(
      fence.operationId,
      `the target fence holds epoch ${answer.epoch}, newer than ${fence.epoch}`,
    );
  }
  return { epoch: answer.epoch ?? fence.epoch, status: answer.status };
}

/**
 * The commit guard, the first statement of the mutation's transaction: marks the fence committed
 * only while it holds the writer's epoch. Throws FENCED (the caller rolls back; nothing was
 * written) when it does not. `checkEpoch: false` is the unsafe "ignore-epoch" behaviour.
 */
export async function markCommitted(
  tx: SqlRunner,
  sql: FenceSql,
  fence: FenceRef,
  rowsWritten: number,
  nowMs: number,
  checkEpoch = true,
): Promise<void> {
  const params = {
    operation_id: fence.operationId,
    epoch: fence.epoch,
    rows_written: rowsWritten,
    now_ms: nowMs,
  };
  const { affected } = await tx.run(checkEpoch ? sql.guard : sql.guardIgnoringEpoch, params);
  if (affected === 0) {
    throw fenced(
      fence.operationId,
      `the target fence does not hold epoch ${fence.epoch}; nothing was written`,
    );
  }
}

/** committed with proof / not-committed (fence present, not committed) / unknown (no fence row). */
export async function readFence(
  dialect: Pick<MarkerDialect, 'read' | 'sql'>,
  operationId: string,
): Promise<FenceAnswer> {
  return toAnswer(await dialect.read(dialect.sql.select, { operation_id: operationId }));
}

/** Decodes the fence row (drivers return BIGINT as number, bigint or string). */
export function toAnswer(result: SqlResult): FenceAnswer {
  const row = result.rows[0];
  if (row === undefined) return { status: 'unknown', epoch: null, committedEpoch: null, rowsWritten: null };
  const committed = row.status === 'committed';
  return {
    status: committed ? 'committed' : 'not-committed',
    epoch: Number(row.epoch),
    committedEpoch: committed ? Number(row.committed_epoch) : null,
    rowsWritten: committed ? Number(row.rows_written) : null,
  };
}

/** Wraps a driver failure of a fence read or install; the driver's message stays in `cause`. */
export function fenceUnavailable(label: string, operationId: string | undefined, error: unknown): DponeError {
  return new DponeError(
    ERROR_CODES.FENCE_UNAVAILABLE,
    `the ${label} target fence could not be read or written (unreachable, timed out or refused)`,
    operationId !== undefined ? { operationId } : {},
    { cause: error },
  );
}

/** A driver error during the mutation proves nothing about its outcome: the executor asks the fence. */
export function commitUnknown(label: string, operationId: string, error: unknown): DponeError {
  return new DponeError(
    ERROR_CODES.COMMIT_UNKNOWN,
    `the ${label} target mutation did not return; only the fence can tell whether it committed`,
    { operationId },
    { cause: error },
  );
}
