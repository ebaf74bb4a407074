import { DponeError, ERROR_CODES } from '../contracts/errors.ts';
import type { CommitJournalEntry } from '../contracts/journal.ts';
import type { FenceAnswer } from '../ports/connector.ts';
import type { ExecutorDeps, OperationRequest } from './executor-types.ts';
import { assertSameIntent, safe } from './fence-decision.ts';

/**
 * A journal entry found COMPLETE is confirmed by the target before a run answers already-complete.
 * The journal and the target are two systems: a failover to a replica that never received the
 * commit, or a crash that lost an unflushed one, leaves the journal COMPLETE and the target
 * without the rows, and every later run would say "already complete" forever. One fence read
 * settles it: committed → complete; a fence that proves the commit absent (there but not
 * committed, or gone) → DIVERGED, nothing written, and an operator reopens the entry (`dpone
 * recovery target-commit apply --action reopen`); a fence that cannot answer → FENCE_UNAVAILABLE
 * (retry). Skipped for a target without a fence (nothing to ask) and where the workload opts out.
 */
export async function confirmComplete(
  entry: CommitJournalEntry,
  deps: ExecutorDeps,
  request: OperationRequest,
): Promise<void> {
  if (request.confirmComplete === false || deps.flaws?.trustsComplete) return;
  if (deps.target.capability === 'none') return;
  const answer = await deps.target.queryFence(request.operationId);
  assertSameIntent(answer, request.intentDigest, entry);
  if (answer.status === 'committed') return;
  if (lostCommit(answer)) throw commitLost(entry, answer, request.metadata.fence_location);
  throw new DponeError(
    ERROR_CODES.FENCE_UNAVAILABLE,
    'the journal says COMPLETE but the target fence cannot confirm the commit now; a retry asks again',
    {
      ...safe(entry),
      hint: `the fence answered ${answer.status}; opt out with target.confirm_complete: false`,
    },
  );
}

/** The fence proves the commit absent: it is there and not committed, or it is gone. */
function lostCommit(answer: FenceAnswer): boolean {
  return answer.status === 'not-committed' || answer.epoch === null;
}

function commitLost(
  entry: CommitJournalEntry,
  answer: FenceAnswer,
  location: string | undefined,
): DponeError {
  const where = location ? ` at ${location}` : '';
  const found = answer.epoch === null ? 'holds no fence for this operation' : 'holds the fence uncommitted';
  return new DponeError(
    ERROR_CODES.DIVERGED,
    `the journal says COMPLETE, but the target ${found}${where}: the commit was lost (a failover to a ` +
      'replica that had not received it, or a crash that lost an unflushed commit). Nothing was written; ' +
      'inspect, then `dpone recovery target-commit apply --action reopen` lets the next run load it once',
    {
      ...safe(entry),
      hint: 'dpone recovery target-commit inspect, then apply --action reopen (docs/recovery-runbook.md: failover)',
    },
  );
}
