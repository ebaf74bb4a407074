import { DponeError, ERROR_CODES } from '../../../contracts/errors.ts';
import type { FenceAnswer, FenceEvidence, FenceRef } from '../../../ports/connector.ts';
import type { MssqlDriver, MssqlPool, MssqlRequest } from './mssql-session.ts';
import { MSSQL_ERRORS, bind, mssqlErrorNumber } from './mssql-session.ts';

/**
 * The transactional commit marker: one row per operation in the target database. `epoch` is the
 * newest lease epoch that installed itself; the row turns `committed` in the same transaction as
 * the data, and only while it still holds the writer's epoch. The guard UPDATE is the mutation's
 * first statement, so it holds the row's exclusive lock until COMMIT or ROLLBACK: a new holder
 * raising the epoch waits for it, and a writer whose epoch was raised first matches zero rows.
 */
export const FENCE_TABLE = '_dpone_fence';

export const FENCE_TABLE_DDL =
  `IF OBJECT_ID(N'${FENCE_TABLE}', N'U') IS NULL CREATE TABLE ${FENCE_TABLE} (` +
  'operation_id NVARCHAR(80) NOT NULL PRIMARY KEY, epoch BIGINT NOT NULL, status NVARCHAR(16) NOT NULL, ' +
  'committed_epoch BIGINT NULL, rows_written BIGINT NULL, updated_at_ms BIGINT NOT NULL)';

// READCOMMITTEDLOCK: even where the database reads row versions (READ_COMMITTED_SNAPSHOT, the
// Azure SQL default), the fence read waits for an in-flight guard's COMMIT or ROLLBACK instead of
// answering from the version before it.
const SELECT_FENCE = `SELECT epoch, status, committed_epoch, rows_written FROM ${FENCE_TABLE} WITH (READCOMMITTEDLOCK) WHERE operation_id = @operation_id`;

/**
 * Insert-if-absent under UPDLOCK + HOLDLOCK (HOLDLOCK is SERIALIZABLE for this table: the key
 * range stays locked, so of two concurrent installers one waits for the other), then raise the
 * epoch only upward. The status column is never touched. Parameters are bound, never inlined.
 */
export const FENCE_SQL = {
  insertIfAbsent:
    `INSERT INTO ${FENCE_TABLE} (operation_id, epoch, status, updated_at_ms) ` +
    `SELECT @operation_id, @epoch, N'prepared', @now_ms WHERE NOT EXISTS ` +
    `(SELECT 1 FROM ${FENCE_TABLE} WITH (UPDLOCK, HOLDLOCK) WHERE operation_id = @operation_id);`,
  raiseEpoch: `UPDATE ${FENCE_TABLE} SET epoch = @epoch, updated_at_ms = @now_ms WHERE operation_id = @operation_id AND epoch < @epoch;`,
  select: SELECT_FENCE,
  guard:
    `UPDATE ${FENCE_TABLE} WITH (ROWLOCK, UPDLOCK) SET status = N'committed', committed_epoch = @epoch, ` +
    'rows_written = @rows_written, updated_at_ms = @now_ms WHERE operation_id = @operation_id AND epoch = @epoch; ' +
    'SELECT @@ROWCOUNT AS affected;',
  /** The unsafe "ignore-epoch" guard: keyed by the operation only. */
  guardIgnoringEpoch:
    `UPDATE ${FENCE_TABLE} WITH (ROWLOCK, UPDLOCK) SET status = N'committed', committed_epoch = @epoch, ` +
    'rows_written = @rows_written, updated_at_ms = @now_ms WHERE operation_id = @operation_id; ' +
    'SELECT @@ROWCOUNT AS affected;',
} as const;

/** The one batch prepareFence sends; without raising it is the unsafe "ignore-epoch" install. */
export function installFenceSql(raiseEpoch: boolean): string {
  return [FENCE_SQL.insertIfAbsent, ...(raiseEpoch ? [FENCE_SQL.raiseEpoch] : []), `${SELECT_FENCE};`].join(
    ' ',
  );
}

function fenced(operationId: string, message: string): DponeError {
  return new DponeError(ERROR_CODES.FENCED, message, { operationId });
}

/**
 * Inserts the fence, or raises its epoch to `fence.epoch` (never lowers it, never touches the
 * committed status), in one transaction. Refuses with FENCED when a newer epoch holds it. A lost
 * insert race or a deadlock (the server rolled us back) is tried again, twice at most.
 */
export async function installFence(
  pool: MssqlPool,
  driver: MssqlDriver,
  fence: FenceRef,
  nowMs: number,
  raiseEpoch = true,
): Promise<FenceEvidence> {
  const params = { operation_id: fence.operationId, epoch: fence.epoch, now_ms: nowMs };
  for (let attempt = 1; ; attempt++) {
    const tx = pool.transaction();
    await tx.begin(driver.ISOLATION_LEVEL.READ_COMMITTED);
    let answer: FenceAnswer;
    try {
      answer = toAnswer((await bind(tx.request(), params).query(installFenceSql(raiseEpoch))).recordset);
      await tx.commit();
    } catch (error) {
      await tx.rollback().catch(() => undefined);
      const number = mssqlErrorNumber(error) ?? -1;
      const retriable = MSSQL_ERRORS.uniqueViolation.has(number) || number === MSSQL_ERRORS.deadlock;
      if (retriable && attempt < 3) continue;
      throw error;
    }
    if (raiseEpoch && answer.epoch !== null && answer.epoch > fence.epoch) {
      throw fenced(
        fence.operationId,
        `the target fence holds epoch ${answer.epoch}, newer than ${fence.epoch}`,
      );
    }
    return { epoch: answer.epoch ?? fence.epoch, status: answer.status };
  }
}

/**
 * The commit guard, the first statement of the mutation's transaction: marks the fence committed
 * only while it holds the writer's epoch, checked through @@ROWCOUNT. Throws FENCED (the caller
 * rolls back; nothing was written) when it does not. `checkEpoch: false` is the unsafe variant.
 */
export async function markCommitted(
  request: MssqlRequest,
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
  const result = await bind(request, params).query(
    checkEpoch ? FENCE_SQL.guard : FENCE_SQL.guardIgnoringEpoch,
  );
  if (Number(result.recordset?.[0]?.affected ?? 0) === 0) {
    throw fenced(
      fence.operationId,
      `the target fence does not hold epoch ${fence.epoch}; nothing was written`,
    );
  }
}

/** committed with proof / not-committed (fence present, not committed) / unknown (no fence row). */
export async function readFence(request: MssqlRequest, operationId: string): Promise<FenceAnswer> {
  return toAnswer((await bind(request, { operation_id: operationId }).query(SELECT_FENCE)).recordset);
}

function toAnswer(rows: readonly Record<string, unknown>[] | undefined): FenceAnswer {
  const row = rows?.[0];
  if (row === undefined) return { status: 'unknown', epoch: null, committedEpoch: null, rowsWritten: null };
  // The driver returns BIGINT as a string.
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
    'the MSSQL target fence could not be read or written (unreachable, timed out or refused)',
    operationId !== undefined ? { operationId } : {},
    { cause: error },
  );
}
