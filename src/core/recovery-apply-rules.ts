import { DponeError, ERROR_CODES } from '../contracts/errors.ts';
import type { CommitJournalEntry } from '../contracts/journal.ts';
import type { Clock } from '../ports/clock.ts';
import type { TargetConnector } from '../ports/connector.ts';
import type { FaultPoints } from '../ports/fault-points.ts';
import type { TargetCommitJournalPort } from '../ports/journal.ts';
import type { StateSink } from '../ports/state-sink.ts';
import type { PlannedRecoveryAction } from './recovery-actions.ts';

/*
 * What a recovery apply is given, and the rule every apply path (recovery-apply.ts, and the
 * fence-first path of recovery-fence-first.ts) checks before it writes: apart from both, so that
 * neither imports the other back.
 */

export interface RecoveryApplyDeps {
  readonly journal: TargetCommitJournalPort;
  /**
   * The target fence; without it only actions that need no fence answer can be legal. With
   * `prepareFence` an action that claims the fence's proof raises the fence's epoch first.
   */
  readonly fence?: Pick<TargetConnector, 'queryFence'> & Partial<Pick<TargetConnector, 'prepareFence'>>;
  /** The workload's lease TTL: the lease the operator takes to fence first, and the plan's TTL bound. */
  readonly leaseTtlMs?: number;
  /**
   * UNSAFE, the harness's `recovery-without-fence` variant only: read the fence's proof without
   * raising its epoch first (the apply before issue 30).
   */
  readonly withoutFence?: boolean;
  /** complete-state makes state and evidence durable through it first, when given. */
  readonly state?: StateSink;
  readonly faults: FaultPoints;
  readonly clock: Clock;
}

/** Throws ILLEGAL_TRANSITION naming what is unmet when the chosen action is not legal now. */
export function assertLegal(entry: CommitJournalEntry, chosen: PlannedRecoveryAction): void {
  if (chosen.legal) return;
  const unmet = chosen.preconditions
    .filter((condition) => !condition.met)
    .map((condition) => condition.description);
  const why = chosen.transition === null ? [`no ${chosen.name} transition leaves ${entry.state}`] : unmet;
  throw new DponeError(ERROR_CODES.ILLEGAL_TRANSITION, `${chosen.name} is not legal now: ${why.join('; ')}`, {
    operationId: entry.operation_id,
    state: entry.state,
    journalVersion: entry.version,
  });
}
