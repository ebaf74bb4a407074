import type { ErrorCode } from '../contracts/errors.ts';
import { ERROR_CODES, isDponeError } from '../contracts/errors.ts';
import type { Clock } from '../ports/clock.ts';
import type { TargetCommitJournalPort } from '../ports/journal.ts';

/**
 * Failures that leave no target mutation behind when they happen before COMMITTING: the fence or
 * the source could not be reached or opened, the input or the environment is wrong, the process
 * was asked to stop. Deliberately not here: a lost race (CAS_CONFLICT) or a newer epoch (FENCED),
 * where the lease is someone else's, and a journal/fence divergence, which must stay as it is for
 * an operator to inspect.
 */
const RELEASE_ON: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  ERROR_CODES.FENCE_UNAVAILABLE,
  ERROR_CODES.PRE_COMMIT_FAILED,
  ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
  ERROR_CODES.INVALID_INPUT,
  ERROR_CODES.OBJECT_NOT_FOUND,
  ERROR_CODES.PERMISSION_DENIED,
  ERROR_CODES.AUTHENTICATION_FAILED,
  ERROR_CODES.ROUTE_NOT_CERTIFIED,
  ERROR_CODES.INTERRUPTED,
  ERROR_CODES.PARTITION_BUSY,
  // A full disk under the target (fence creation, or the rows once the fence proved none landed):
  // the hand-back lets the retry after freeing space start at once.
  ERROR_CODES.STORAGE_FULL,
  // Raised only once the fence proved nothing landed (journal back at PREPARED): the refused run
  // hands the operation back, so its leftovers are cleanable (recovery cleanup) and a fix goes ahead.
  ERROR_CODES.DATA_REJECTED,
]);

/** The lease taken for the moment of a hand-back that found none held (released by it). */
const HAND_BACK_LEASE_MS = 30_000;

/**
 * After a run failed, hands the operation back when it is still before any mutation and this
 * executor holds its lease: PREPARING | PREPARED -> FAILED_PRE_COMMIT with the lease released, so an
 * immediate retry (Airflow's, an operator's) starts at once instead of getting CAS_CONFLICT until
 * the lease expires. The retry takes a new epoch, as after any FAILED_PRE_COMMIT. Best effort: the
 * run's own error stays its outcome, and if the journal cannot be reached the lease simply expires.
 */
export async function releaseBeforeMutation(
  journal: TargetCommitJournalPort,
  clock: Clock,
  request: { readonly operationId: string; readonly holder: string },
  error: unknown,
  /** This execution began no mutation of its own (a recovering executor that failed to reconcile). */
  mutationFree = false,
): Promise<void> {
  if (!isDponeError(error) || !RELEASE_ON.has(error.code)) return;
  try {
    const entry = await journal.get(request.operationId);
    // Ours, or nobody's: the fence's proof that nothing landed already handed the lease back.
    if (entry === null || (entry.lease !== null && entry.lease.holder !== request.holder)) return;
    if (entry.state === 'COMMITTING' && mutationFree && entry.lease !== null) {
      // Recovering an earlier attempt's commit, this one failed before it wrote anything: hand the
      // lease back and leave the state as it is, so the next run reconciles at once instead of
      // waiting out a lease that may have been written by a clock that ran ahead. It takes a newer
      // epoch, which it raises in the fence before reconciling, as after any takeover.
      await journal.expireLease({
        operationId: request.operationId,
        expectedVersion: entry.version,
        evidence: {
          reason: 'lease:released-before-mutation',
          error_code: error.code,
          holder: request.holder,
        },
        nowMs: clock.nowMs(),
      });
      return;
    }
    if (entry.state !== 'PREPARING' && entry.state !== 'PREPARED') return;
    // Nobody's lease (the fence's proof handed it back): take it again first, so the hand-back is
    // written by the lease holder like every transition (the journal-lease check holds it to that).
    const held =
      entry.lease === null
        ? await journal.acquireLease({
            operationId: request.operationId,
            expectedVersion: entry.version,
            holder: request.holder,
            ttlMs: HAND_BACK_LEASE_MS,
            nowMs: clock.nowMs(),
          })
        : entry;
    await journal.compareAndSet({
      operationId: request.operationId,
      expectedVersion: held.version,
      expectedStates: new Set([held.state]),
      nextState: 'FAILED_PRE_COMMIT',
      evidence: { reason: 'lease:released-before-mutation', error_code: error.code, holder: request.holder },
      nowMs: clock.nowMs(),
      releaseLease: true,
    });
  } catch {
    // the lease expires on its own; the primary failure is what the caller reports
  }
}
