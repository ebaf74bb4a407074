import { DponeError, ERROR_CODES } from '../contracts/errors.ts';
import type { CommitJournalEntry, CommitTransitionEvidence } from '../contracts/journal.ts';
import type { FenceAnswer, FenceStatus, MutationReceipt } from '../ports/connector.ts';

/**
 * What the executor reads from a fence answer: pure, so each divergence a lost, reset, restored or
 * forked journal can cause is decided in one place. The journal only moves on the fence's proof.
 */

/** Why a target without a fence capability left the outcome unknown (spec: COMMIT_UNKNOWN, no replay). */
export const NO_FENCE_CAPABILITY = 'fence:none';

/** Why the journal moved when the target proved a commit the journal did not know of. */
export const COMMITTED_BEFORE_JOURNAL = 'fence:committed-before-journal';

export function safe(entry: CommitJournalEntry) {
  return { operationId: entry.operation_id, state: entry.state, journalVersion: entry.version };
}

/** A fence installed for another intent: this operation id belongs to another mutation. */
export function assertSameIntent(answer: FenceAnswer, intentDigest: string, entry: CommitJournalEntry): void {
  if (answer.intentDigest === null || answer.intentDigest === intentDigest) return;
  throw new DponeError(
    ERROR_CODES.INTENT_CONFLICT,
    'the target fence holds another intent digest for this operation id; nothing was written',
    safe(entry),
  );
}

/** The journal's fence location against this run's; both recorded as safe identities. */
export function assertSameFenceLocation(entry: CommitJournalEntry, current: string | undefined): void {
  const recorded = entry.metadata.fence_location;
  if (recorded === undefined || current === undefined || recorded === current) return;
  throw new DponeError(
    ERROR_CODES.DIVERGED,
    `the journal recorded the target fence at ${recorded}, but this run would look for it at ${current}; ` +
      'refusing before any source or target I/O (restore the workload’s fence location, or inspect)',
    safe(entry),
  );
}

/** The journal says the fence was prepared (PREPARED), but the target holds none where we look. */
export function fenceMissing(entry: CommitJournalEntry, location: string | undefined): DponeError {
  return new DponeError(
    ERROR_CODES.DIVERGED,
    `the journal says the target fence was prepared, but the target holds no fence for this operation` +
      `${location ? ` at ${location}` : ''}: it was dropped, renamed or is looked for elsewhere. Nothing ` +
      'was written; inspect with `dpone recovery target-commit inspect`',
    safe(entry),
  );
}

/** Evidence for the journal's catch-up steps when the fence proves a commit the journal missed. */
export function adoptionEvidence(answer: FenceAnswer): CommitTransitionEvidence {
  return {
    reason: COMMITTED_BEFORE_JOURNAL,
    fence_status: 'committed',
    ...(answer.committedEpoch !== null ? { fence_epoch: answer.committedEpoch } : {}),
    ...(answer.rowsWritten !== null ? { rows_written: answer.rowsWritten } : {}),
  };
}

export interface Reconciliation {
  readonly status: FenceStatus;
  readonly evidence: CommitTransitionEvidence;
  /** Whether this attempt's own write is what the fence proves committed. */
  readonly mutated: boolean;
}

/**
 * Reads the fence after a mutation (receipt) or on recovery (no receipt). A missing fence is
 * `unknown` (never not-committed). A target that refused our write as already committed and now
 * denies any commit contradicts itself: `unknown`. This attempt mutated only if its guard matched
 * (`applied`) and the fence's committed epoch is the epoch it wrote under.
 */
export function reconcileFence(
  answer: FenceAnswer,
  receipt: MutationReceipt | null,
  /** The target has no fence capability at all (capability `none`): nothing can prove the outcome. */
  fenceless = false,
): Reconciliation {
  if (fenceless)
    return {
      status: 'unknown',
      evidence: { reason: NO_FENCE_CAPABILITY, fence_status: 'unknown' },
      mutated: false,
    };
  const contradicted = receipt !== null && !receipt.applied && answer.status !== 'committed';
  const status: FenceStatus = contradicted ? 'unknown' : answer.status;
  const missing = answer.epoch === null && answer.status === 'unknown';
  const adopted = status === 'committed' && receipt !== null && !receipt.applied;
  const reason = missing
    ? 'fence:missing'
    : contradicted
      ? 'fence:contradicts-receipt'
      : adopted
        ? COMMITTED_BEFORE_JOURNAL
        : `fence:${status}`;
  const epoch = answer.committedEpoch ?? answer.epoch;
  return {
    status,
    evidence: {
      reason,
      fence_status: status,
      ...(epoch !== null ? { fence_epoch: epoch } : {}),
      ...(answer.rowsWritten !== null ? { rows_written: answer.rowsWritten } : {}),
    },
    mutated:
      status === 'committed' &&
      receipt !== null &&
      receipt.applied &&
      answer.committedEpoch === receipt.epoch,
  };
}
