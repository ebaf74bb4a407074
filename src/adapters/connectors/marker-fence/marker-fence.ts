import { DponeError, ERROR_CODES } from '../../../contracts/errors.ts';
import type { FenceAnswer, FenceEvidence, FenceRef, PrepareFenceMode } from '../../../ports/connector.ts';
import { noFenceAnswer } from '../../../ports/connector.ts';
import type { MarkerDialect, SqlResult, SqlRunner } from './marker-dialect.ts';
import type { FenceSql } from './marker-sql.ts';

/**
 * The transactional commit marker, written once for every SQL target: one row per operation in
 * the target database, holding the newest lease epoch, the holder that installed it and the
 * intent digest. The row turns `committed` in the same transaction as the data, by a guard that
 * is the transaction's first statement and matches only while the row holds the writer's epoch
 * and intent and is not committed yet: at most one commit per operation, whatever any journal
 * says. The guard holds the row lock, so a new holder raising the epoch waits for our COMMIT or
 * ROLLBACK, and a writer whose epoch was raised first matches zero rows.
 */
export const FENCE_TABLE = '_dpone_fence';

export function fenced(operationId: string, message: string): DponeError {
  return new DponeError(ERROR_CODES.FENCED, message, { operationId });
}

function params(fence: FenceRef, nowMs: number) {
  return {
    operation_id: fence.operationId,
    epoch: fence.epoch,
    intent_digest: fence.intentDigest,
    holder: fence.holder,
    now_ms: nowMs,
  };
}

/**
 * Whether the fence holds exactly the caller's epoch, for the caller's holder and intent. On a
 * committed row the holder keeps naming the committer (it and the committed epoch agree), so
 * there the epoch and intent decide.
 */
export function holdsCaller(answer: FenceAnswer, fence: FenceRef): boolean {
  return (
    answer.epoch === fence.epoch &&
    (answer.holder === fence.holder || answer.status === 'committed') &&
    answer.intentDigest === fence.intentDigest
  );
}

/**
 * prepareFence in one transaction: insert the row (only with `mode.create`), raise its epoch for
 * the caller's intent (never lower it, never touch the status), read it back. It never refuses:
 * it answers what the fence holds, and `installed` says whether that is the caller's.
 */
export async function installFence(
  dialect: MarkerDialect,
  fence: FenceRef,
  mode: PrepareFenceMode,
  nowMs: number,
): Promise<FenceEvidence> {
  const { sql } = dialect;
  const statements = [...(mode.create ? [sql.insertIfAbsent] : []), sql.raiseEpoch, sql.select];
  const answer = toAnswer(await dialect.batch(statements, params(fence, nowMs)));
  return { ...answer, installed: holdsCaller(answer, fence) };
}

/** The commit guard's outcome when it did not refuse. */
export type GuardOutcome =
  { readonly applied: true } | { readonly applied: false; readonly answer: FenceAnswer };

/**
 * The commit guard, the first statement of the mutation's transaction (`rowsWritten` null: the
 * rows are streamed after it and recorded by `recordRows`). When it matches nothing,
 * the row is read in the same transaction and the refusal named precisely (nothing was written;
 * the caller rolls back): no row at all → DIVERGED; another intent → INTENT_CONFLICT; another
 * epoch → FENCED (a zombie, whether or not the newer epoch committed); our epoch, already
 * committed → `applied: false`.
 */
export async function guardCommit(
  tx: SqlRunner,
  sql: FenceSql,
  fence: FenceRef,
  rowsWritten: number | null,
  nowMs: number,
): Promise<GuardOutcome> {
  const values = { ...params(fence, nowMs), rows_written: rowsWritten };
  const { affected } = await tx.run(sql.guard, values);
  if (affected > 0) return { applied: true };
  const answer = toAnswer(await tx.run(sql.select, { operation_id: fence.operationId }));
  refuseUnwritten(fence, answer, answer.epoch === fence.epoch, {
    noFence: 'the target holds no fence',
    fence: 'the target fence',
    notHeld: (epoch) => `the target fence holds epoch ${epoch}, not ${fence.epoch}`,
  });
  return { applied: false, answer };
}

/** How a target words what its fence holds, in the refusals of refuseUnwritten. */
export interface UnwrittenWords {
  /** What holds no fence at all: `the target holds no fence`. */
  readonly noFence: string;
  /** What holds another intent: `the target fence`. */
  readonly fence: string;
  /** What the fence holds instead of the caller's epoch, `epoch` its newest. */
  readonly notHeld: (epoch: number) => string;
}

/**
 * A commit check's refusals before anything is written, in this order: no fence where this run
 * looks → DIVERGED; another intent → INTENT_CONFLICT; not `held` by the caller (another epoch, or a
 * target's own reason) → FENCED. Each ends "nothing was written" and names the operation; `found`
 * is what the fence holds (its newest epoch and intent), `words` how the target says so.
 */
export function refuseUnwritten(
  fence: FenceRef,
  found: { readonly epoch: number | null; readonly intentDigest: string | null },
  held: boolean,
  words: UnwrittenWords,
): void {
  const { operationId } = fence;
  const unwritten = '; nothing was written';
  if (found.epoch === null) {
    throw new DponeError(
      ERROR_CODES.DIVERGED,
      `${words.noFence} for this operation where this run looks${unwritten}`,
      { operationId },
    );
  }
  if (found.intentDigest !== fence.intentDigest) {
    throw new DponeError(
      ERROR_CODES.INTENT_CONFLICT,
      `${words.fence} holds another intent digest for this operation id${unwritten}`,
      { operationId },
    );
  }
  if (!held) throw fenced(operationId, `${words.notHeld(found.epoch)}${unwritten}`);
}

/** committed with proof / not-committed (fence present, not committed) / unknown (no fence row). */
export async function readFence(
  dialect: Pick<MarkerDialect, 'read' | 'sql'>,
  operationId: string,
): Promise<FenceAnswer> {
  return toAnswer(await dialect.read(dialect.sql.select, { operation_id: operationId }));
}

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** Decodes the fence row (drivers return BIGINT as number, bigint or string). */
export function toAnswer(result: SqlResult): FenceAnswer {
  const row = result.rows[0];
  if (row === undefined) return noFenceAnswer();
  const committed = row.status === 'committed';
  return {
    status: committed ? 'committed' : 'not-committed',
    epoch: Number(row.epoch),
    committedEpoch: committed ? Number(row.committed_epoch) : null,
    rowsWritten: committed && row.rows_written !== null ? Number(row.rows_written) : null,
    intentDigest: text(row.intent_digest),
    holder: text(row.holder),
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
