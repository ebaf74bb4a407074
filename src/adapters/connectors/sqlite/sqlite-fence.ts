import { DponeError, ERROR_CODES } from '../../../contracts/errors.ts';
import type { FenceAnswer, FenceEvidence, FenceRef } from '../../../ports/connector.ts';
import type { SqliteDatabase } from './sqlite-connection.ts';

/**
 * The transactional commit marker: one row per operation in the target database. `epoch` is the
 * newest lease epoch that installed itself; the row turns `committed` in the same transaction as
 * the data, and only while it still holds the writer's epoch.
 */
export const FENCE_TABLE = '_dpone_fence';

export function ensureFenceTable(db: SqliteDatabase): void {
  db.exec(
    `CREATE TABLE IF NOT EXISTS ${FENCE_TABLE} (` +
      'operation_id TEXT PRIMARY KEY, epoch INTEGER NOT NULL, status TEXT NOT NULL, ' +
      'committed_epoch INTEGER, rows_written INTEGER, updated_at_ms INTEGER NOT NULL)',
  );
}

function fenced(operationId: string, message: string): DponeError {
  return new DponeError(ERROR_CODES.FENCED, message, { operationId });
}

/** Reads the epoch the fence holds now, or null when there is no fence row. */
export function fenceEpoch(db: SqliteDatabase, operationId: string): number | null {
  const row = db.prepare(`SELECT epoch FROM ${FENCE_TABLE} WHERE operation_id = ?`).get(operationId);
  return row === undefined ? null : Number(row.epoch);
}

/**
 * Inserts the fence, or raises its epoch to `fence.epoch`; never lowers it and never touches the
 * committed status. Refuses with FENCED when a newer epoch holds the fence.
 * `raiseEpoch: false` is the unsafe "ignore-epoch" behaviour (insert only).
 */
export function installFence(
  db: SqliteDatabase,
  fence: FenceRef,
  nowMs: number,
  raiseEpoch = true,
): FenceEvidence {
  db.prepare(
    `INSERT INTO ${FENCE_TABLE} (operation_id, epoch, status, updated_at_ms) VALUES (?, ?, 'prepared', ?) ` +
      'ON CONFLICT (operation_id) DO NOTHING',
  ).run(fence.operationId, fence.epoch, nowMs);
  if (raiseEpoch) {
    db.prepare(
      `UPDATE ${FENCE_TABLE} SET epoch = ?, updated_at_ms = ? WHERE operation_id = ? AND epoch < ?`,
    ).run(fence.epoch, nowMs, fence.operationId, fence.epoch);
  }
  const answer = readFence(db, fence.operationId);
  if (raiseEpoch && answer.epoch !== null && answer.epoch > fence.epoch) {
    throw fenced(
      fence.operationId,
      `the target fence holds epoch ${answer.epoch}, newer than ${fence.epoch}`,
    );
  }
  return { epoch: answer.epoch ?? fence.epoch, status: answer.status };
}

/**
 * The commit guard, run first inside the mutation's transaction: marks the fence committed only if
 * it still holds the writer's epoch. Throws FENCED (the caller rolls back) when it does not.
 * `checkEpoch: false` is the unsafe "ignore-epoch" behaviour (guard on the operation id only).
 */
export function markCommitted(
  db: SqliteDatabase,
  fence: FenceRef,
  rowsWritten: number,
  nowMs: number,
  checkEpoch = true,
): void {
  const sql =
    `UPDATE ${FENCE_TABLE} SET status = 'committed', committed_epoch = ?, rows_written = ?, updated_at_ms = ? ` +
    `WHERE operation_id = ?${checkEpoch ? ' AND epoch = ?' : ''}`;
  const params = [fence.epoch, rowsWritten, nowMs, fence.operationId, ...(checkEpoch ? [fence.epoch] : [])];
  const changed = Number(db.prepare(sql).run(...params).changes);
  if (changed === 0) {
    throw fenced(
      fence.operationId,
      `the target fence does not hold epoch ${fence.epoch}; nothing was written`,
    );
  }
}

/** committed with proof / not-committed (fence present, not committed) / unknown (no fence row). */
export function readFence(db: SqliteDatabase, operationId: string): FenceAnswer {
  const row = db
    .prepare(`SELECT epoch, status, committed_epoch, rows_written FROM ${FENCE_TABLE} WHERE operation_id = ?`)
    .get(operationId);
  if (row === undefined) return { status: 'unknown', epoch: null, committedEpoch: null, rowsWritten: null };
  const committed = row.status === 'committed';
  return {
    status: committed ? 'committed' : 'not-committed',
    epoch: Number(row.epoch),
    committedEpoch: committed ? Number(row.committed_epoch) : null,
    rowsWritten: committed ? Number(row.rows_written) : null,
  };
}

/** Wraps a driver failure of a fence read or install; the driver's message is kept as cause only. */
export function fenceUnavailable(operationId: string, error: unknown): DponeError {
  return new DponeError(
    ERROR_CODES.FENCE_UNAVAILABLE,
    'the SQLite target fence could not be read or written',
    { operationId },
    { cause: error },
  );
}
