import type { CommitJournalEntry, JournalHistoryRecord } from '../contracts/journal.ts';
import type { CommitState } from '../contracts/states.ts';
import type { FenceAnswer } from '../ports/connector.ts';
import type {
  PlannedRecoveryAction,
  RecoveryActionName,
  RecoveryPlan,
  RecoveryPlanContext,
  RecoveryProof,
} from './recovery-actions.ts';
import { assessRecovery, targetProofIn } from './recovery-assessment.ts';
import { reopenAction } from './recovery-reopen.ts';
import { planExpireLease } from './recovery-expire-lease.ts';
import { journalTransition } from './recovery-transition.ts';
import { leaseOverrunMs } from './lease-overrun.ts';

/**
 * The recovery planner: a pure function of what the journal holds and what the target fence
 * answers now (null when the fence was not queried). It never reads or writes anything itself, so
 * `plan` is read-only by construction and `apply` re-plans from a fresh read before it writes.
 */
export function planRecovery(
  entry: CommitJournalEntry,
  history: readonly JournalHistoryRecord[],
  fence: FenceAnswer | null,
  context: RecoveryPlanContext,
): RecoveryPlan {
  const assessment = assessRecovery(entry, history, fence, context.nowMs, context);
  const actions = [
    completeState(entry, history, fence, context),
    markNotCommitted(entry, fence, context),
    resolveUnknown(entry, fence, context),
    reopenAction(entry, fence, context),
    planExpireLease(entry),
  ];
  return {
    operation_id: entry.operation_id,
    assessment,
    actions,
    // Journal and fence contradict each other: no action is recommended (the assessment says what
    // next), but a reopen the fence's own proof justifies.
    recommended:
      assessment.kind === 'inconsistent'
        ? actions.some((candidate) => candidate.name === 'reopen' && candidate.legal)
          ? 'reopen'
          : null
        : recommend(entry, actions, context),
  };
}

function completeState(
  entry: CommitJournalEntry,
  history: readonly JournalHistoryRecord[],
  fence: FenceAnswer | null,
  context: RecoveryPlanContext,
): PlannedRecoveryAction {
  return journalTransition(entry, context, {
    name: 'complete-state',
    from: ['TARGET_COMMITTED', 'COMMITTED_INCOMPLETE'],
    to: 'COMPLETE',
    conditions: [
      {
        description: 'the journal history holds the target fence’s proof of commit (fence:committed)',
        met: targetProofIn(history) !== null,
      },
      {
        description: 'the target fence, when queried, does not contradict the commit',
        met: fence === null || fence.status !== 'not-committed',
      },
    ],
    effect: 'makes state and evidence durable and moves the journal to COMPLETE; the target is not written',
    proof: 'history:target-committed',
  });
}

function markNotCommitted(
  entry: CommitJournalEntry,
  fence: FenceAnswer | null,
  context: RecoveryPlanContext,
): PlannedRecoveryAction {
  return journalTransition(entry, context, {
    name: 'mark-not-committed',
    from: ['COMMITTING', 'COMMIT_UNKNOWN'],
    to: 'PREPARED',
    conditions: [
      {
        description: 'the target fence proves no mutation landed (not-committed)',
        met: fence?.status === 'not-committed',
      },
    ],
    effect:
      'moves the journal back to PREPARED, a retryable state; the next `dpone run` takes a new lease epoch and writes once',
    proof: 'fence:not-committed',
  });
}

function resolveUnknown(
  entry: CommitJournalEntry,
  fence: FenceAnswer | null,
  context: RecoveryPlanContext,
): PlannedRecoveryAction {
  const status = fence?.status ?? null;
  const evidence = context.evidenceRef !== undefined && context.evidenceRef !== '';
  const proven = status === 'committed' || status === 'not-committed' ? status : null;
  // The fence's proof decides; the operator's evidence only where the fence cannot prove anything.
  const outcome = proven ?? (evidence ? (context.outcome ?? 'not-committed') : null);
  const to: CommitState | null =
    outcome === 'committed' ? 'TARGET_COMMITTED' : outcome === 'not-committed' ? 'PREPARED' : null;
  const proof: RecoveryProof | null =
    proven !== null ? `fence:${proven}` : evidence ? 'operator-evidence' : null;
  return journalTransition(entry, context, {
    name: 'resolve-unknown',
    from: ['COMMIT_UNKNOWN'],
    to,
    conditions: [
      {
        description:
          'proof of the outcome: the fence answers committed or not-committed, or the operator records an evidence reference (--evidence-ref)',
        met: proof !== null,
      },
      {
        description: 'an operator evidence reference never overrides a fence that proves the outcome',
        met: context.outcome === undefined || proven === null || context.outcome === proven,
      },
      {
        description: 'an outcome asserted by the operator (--outcome) comes with an evidence reference',
        met: context.outcome === undefined || evidence || proven !== null,
      },
    ],
    effect:
      to === 'TARGET_COMMITTED'
        ? proof === 'operator-evidence'
          ? 'records the operator’s evidence that the target holds the mutation and moves COMMIT_UNKNOWN to TARGET_COMMITTED; complete-state or a `dpone run` then completes it without writing the target'
          : 'records the fence’s proof and moves COMMIT_UNKNOWN to TARGET_COMMITTED; complete-state or a `dpone run` then completes it without writing the target'
        : 'moves COMMIT_UNKNOWN to PREPARED, a retryable state; the next `dpone run` writes once under a new lease epoch',
    proof,
  });
}

function recommend(
  entry: CommitJournalEntry,
  actions: readonly PlannedRecoveryAction[],
  context: RecoveryPlanContext,
): RecoveryActionName | null {
  const legal = actions.filter((candidate) => candidate.legal);
  if (legal.length === 0) return null;
  // A lease that outlives its TTL bound was written by a clock that ran ahead: it blocks every
  // retry until that clock's time, so ending it is the way out (the fence keeps it safe).
  if (leaseOverrunMs(entry, context) !== null && legal.some((c) => c.name === 'expire-lease'))
    return 'expire-lease';
  const chosen = legal.filter((candidate) => candidate.name !== 'expire-lease');
  if (chosen.length === 0) return null;
  // From COMMIT_UNKNOWN resolve-unknown covers both outcomes; evidence alone is the operator's call,
  // so it is recommended only when the operator already recorded it.
  const resolve = legal.find((candidate) => candidate.name === 'resolve-unknown');
  if (entry.state === 'COMMIT_UNKNOWN' && resolve) {
    return resolve.proof !== 'operator-evidence' || context.evidenceRef ? 'resolve-unknown' : null;
  }
  return chosen[0]!.name;
}
