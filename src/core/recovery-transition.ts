import type { CommitJournalEntry } from '../contracts/journal.ts';
import { leaseLive } from '../contracts/lease-clock.ts';
import type { CommitState } from '../contracts/states.ts';
import { isLegalTransition } from '../contracts/states.ts';
import type {
  PlannedRecoveryAction,
  RecoveryActionName,
  RecoveryPlanContext,
  RecoveryPrecondition,
  RecoveryProof,
} from './recovery-actions.ts';

/** What one recovery action that moves the journal says beyond the shape every such action shares. */
export interface TransitionSpec {
  readonly name: RecoveryActionName;
  /** The journal states the action starts from. */
  readonly from: readonly CommitState[];
  /** The state it moves the journal to, or null when nothing justifies one. */
  readonly to: CommitState | null;
  /** The action's own preconditions, between the state's and the lease's. */
  readonly conditions: readonly RecoveryPrecondition[];
  readonly effect: string;
  readonly proof: RecoveryProof | null;
}

/**
 * A recovery action that moves the journal (complete-state, mark-not-committed, resolve-unknown,
 * reopen): its preconditions are the journal being in one of `from`'s states, its own conditions,
 * and no live executor lease (a live worker would race the operator); it is legal only when the
 * state table allows the transition too, and carries its proof only then.
 */
export function journalTransition(
  entry: CommitJournalEntry,
  context: RecoveryPlanContext,
  spec: TransitionSpec,
): PlannedRecoveryAction {
  const preconditions = [inState(entry, spec.from), ...spec.conditions, leaseFree(entry, context)];
  const to = spec.to;
  const transition = to !== null && isLegalTransition(entry.state, to) ? { from: entry.state, to } : null;
  return {
    name: spec.name,
    legal: transition !== null && preconditions.every((condition) => condition.met),
    preconditions,
    effect: spec.effect,
    transition,
    proof: transition ? spec.proof : null,
  };
}

function inState(entry: CommitJournalEntry, states: readonly CommitState[]): RecoveryPrecondition {
  return { description: `journal state is ${states.join(' or ')}`, met: states.includes(entry.state) };
}

function leaseFree(entry: CommitJournalEntry, context: RecoveryPlanContext): RecoveryPrecondition {
  const lease = entry.lease;
  return {
    description: 'no executor holds an unexpired lease (a live worker would race the operator)',
    met: !leaseLive(lease, context.nowMs) || lease?.holder === context.operatorHolder,
  };
}
