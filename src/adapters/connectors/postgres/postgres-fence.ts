import { DponeError, ERROR_CODES } from '../../../contracts/errors.ts';
import type { FenceAnswer, FenceEvidence, FenceRef } from '../../../ports/connector.ts';
import type { SqlClient } from './postgres-session.ts';

/**
 * The transactional commit marker: one row per operation in the target database. `epoch` is the
 * newest lease epoch that installed itself; the row turns `committed` in the same transaction as
 * the data, and only while it still holds the writer's epoch. The guard UPDATE is the mutation's
 * first statement, so it holds the row lock: a new holder raising the epoch waits for our COMMIT
 * or ROLLBACK, and a writer whose epoch was raised first matches zero rows.
 */
export const FENCE_TABLE = '_dpone_fence';

export const FENCE_TABLE_DDL =
  `CREATE TABLE IF NOT EXISTS ${FENCE_TABLE} (operation_id TEXT PRIMARY KEY, epoch BIGINT NOT NULL, ` +
  'status TEXT NOT NULL, committed_epoch BIGINT, rows_written BIGINT, updated_at_ms BIGINT NOT NULL)';

function fenced(operationId: string, message: string): DponeError {
  return new DponeError(ERROR_CODES.FENCED, message, { operationId });
}

/**
 * Inserts the fence, or raises its epoch to `fence.epoch` (never lowers it, never touches the
 * committed status), in one transaction. Refuses with FENCED when a newer epoch holds it.
 * `raiseEpoch: false` is the unsafe "ignore-epoch" behaviour (insert only).
 */
export async function installFence(
  client: SqlClient,
  fence: FenceRef,
  nowMs: number,
  raiseEpoch = true,
): Promise<FenceEvidence> {
  await client.query('BEGIN');
  await client.query(
    `INSERT INTO ${FENCE_TABLE} (operation_id, epoch, status, updated_at_ms) VALUES ($1, $2, 'prepared', $3) ` +
      'ON CONFLICT (operation_id) DO NOTHING',
    [fence.operationId, fence.epoch, nowMs],
  );
  if (raiseEpoch) {
    await client.query(
      `UPDATE ${FENCE_TABLE} SET epoch = $1, updated_at_ms = $2 WHERE operation_id = $3 AND epoch < $1`,
      [fence.epoch, nowMs, fence.operationId],
    );
  }
  const answer = await readFence(client, fence.operationId);
  await client.query('COMMIT');
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
 * only while it holds the writer's epoch. Throws FENCED (the caller rolls back) when it does not.
 * `checkEpoch: false` is the unsafe "ignore-epoch" behaviour.
 */
export async function markCommitted(
  client: SqlClient,
  fence: FenceRef,
  rowsWritten: number,
  nowMs: number,
  checkEpoch = true,
): Promise<void> {
  const sql =
    `UPDATE ${FENCE_TABLE} SET status = 'committed', committed_epoch = $1, rows_written = $2, updated_at_ms = $3 ` +
    `WHERE operation_id = $4${checkEpoch ? ' AND epoch = $1' : ''}`;
  const result = await client.query(sql, [fence.epoch, rowsWritten, nowMs, fence.operationId]);
  if (result.rowCount === 0) {
    throw fenced(
      fence.operationId,
      `the target fence does not hold epoch ${fence.epoch}; nothing was written`,
    );
  }
}

/** committed with proof / not-committed (fence present, not committed) / unknown (no fence row). */
export async function readFence(client: SqlClient, operationId: string): Promise<FenceAnswer> {
  const { rows } = await client.query(
    `SELECT epoch, status, committed_epoch, rows_written FROM ${FENCE_TABLE} WHERE operation_id = $1`,
    [operationId],
  );
  const row = rows[0];
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
export function fenceUnavailable(operationId: string | undefined, error: unknown): DponeError {
  return new DponeError(
    ERROR_CODES.FENCE_UNAVAILABLE,
    'the PostgreSQL target fence could not be read or written (unreachable, timed out or refused)',
    operationId !== undefined ? { operationId } : {},
    { cause: error },
  );
}
