import type { CommitJournalEntry } from '../contracts/journal.ts';
import type { FenceAnswer } from '../ports/connector.ts';
import type { TargetCommitJournalPort } from '../ports/journal.ts';
import type { PlannedRecoveryAction, RecoveryPlanContext } from './recovery-actions.ts';
import { journalTransition } from './recovery-transition.ts';

/**
 * `reopen`: a COMPLETE entry whose commit the target lost (a failover to a replica that had not
 * received it, a crash that lost an unflushed commit) goes back to FAILED_PRE_COMMIT, so an
 * ordinary `dpone run` loads the partition once under a new epoch. Only on the fence's positive
 * proof that the commit is absent: the fence is there and not committed (the data commits in
 * the same transaction as the fence, so none of it landed). A missing fence proves nothing (it may
 * have been dropped with the data in place): then only with the operator's recorded finding that
 * the rows are not in the target (`--evidence-ref`, as resolve-unknown). Audited like every action; before the
 * audited transition the journal's epoch is raised above every epoch the fence has seen, so the
 * next holder's epoch fences any older writer before it writes.
 */
export const REOPEN = 'reopen';

/** The lease the apply takes for a moment to raise the epoch (released by the audited transition). */
const REOPEN_HOLDER = 'recovery:reopen';
const REOPEN_LEASE_MS = 60_000;

export function reopenAction(
  entry: CommitJournalEntry,
  fence: FenceAnswer | null,
  context: RecoveryPlanContext,
): PlannedRecoveryAction {
  const absent = fence !== null && fence.status === 'not-committed' && fence.epoch !== null;
  // A fence gone with the failover proves nothing: only the operator's audited finding may stand in.
  const gone = fence !== null && fence.epoch === null && fence.status === 'unknown';
  const evidence = context.evidenceRef !== undefined && context.evidenceRef !== '';
  const proof = absent ? 'fence:not-committed' : gone && evidence ? 'operator-evidence' : null;
  return journalTransition(entry, context, {
    name: REOPEN,
    from: ['COMPLETE'],
    to: 'FAILED_PRE_COMMIT',
    conditions: [
      {
        description:
          'the target fence (queried with --route) proves the commit absent (there, not committed); or it is gone and the operator records that the partition’s rows are not in the target (--evidence-ref)',
        met: proof !== null,
      },
      {
        description: 'the fence belongs to this operation’s intent',
        met: fence === null || fence.intentDigest === null || fence.intentDigest === entry.intent_digest,
      },
      {
        description: 'an outcome asserted by the operator (--outcome) says not committed',
        met: context.outcome === undefined || context.outcome === 'not-committed',
      },
    ],
    effect:
      'raises the journal’s epoch above the fence’s, then moves COMPLETE back to FAILED_PRE_COMMIT: the next ' +
      '`dpone run` loads the partition once under a new epoch',
    proof,
  });
}

/**
 * Raises the journal's epoch above the fence's (a lease taken for a moment, released by the
 * audited transition that follows); returns the entry to compare-and-set from.
 */
export async function raiseEpochBeforeReopen(
  journal: TargetCommitJournalPort,
  entry: CommitJournalEntry,
  fence: FenceAnswer,
  nowMs: number,
): Promise<CommitJournalEntry> {
  return journal.acquireLease({
    operationId: entry.operation_id,
    expectedVersion: entry.version,
    holder: REOPEN_HOLDER,
    ttlMs: REOPEN_LEASE_MS,
    nowMs,
    minEpoch: Math.max(entry.last_epoch, fence.committedEpoch ?? 0, fence.epoch ?? 0) + 1,
  });
}
