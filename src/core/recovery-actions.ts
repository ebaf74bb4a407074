import type { CommitState } from '../contracts/states.ts';
import type { RecoveryAssessment, RecoveryContext } from './recovery-assessment.ts';

/*
 * The vocabulary of recovery: the operator's actions, a planned action, the plan and its context.
 * Apart from the planner (recovery-planner.ts), so that the action modules it composes
 * (recovery-reopen.ts, recovery-expire-lease.ts) never import the planner back.
 */

/** The operator's recovery actions (spec "CLI recovery"). */
export const RECOVERY_ACTIONS = [
  'complete-state',
  'mark-not-committed',
  'resolve-unknown',
  'reopen',
  'expire-lease',
] as const;
export type RecoveryActionName = (typeof RECOVERY_ACTIONS)[number];

export function isRecoveryActionName(value: unknown): value is RecoveryActionName {
  return typeof value === 'string' && (RECOVERY_ACTIONS as readonly string[]).includes(value);
}

/** What justifies an action's transition; written into the transition evidence as `recovery:<proof>`. */
export type RecoveryProof =
  | 'fence:committed'
  | 'fence:not-committed'
  | 'history:target-committed'
  | 'operator-evidence'
  /** expire-lease: the operator states the holder is dead (the fence, raised by the next holder, makes it safe). */
  | 'operator-assertion';

export interface RecoveryPrecondition {
  readonly description: string;
  readonly met: boolean;
}

export interface PlannedRecoveryAction {
  readonly name: RecoveryActionName;
  /** True only when the state table allows the transition and every precondition is met. */
  readonly legal: boolean;
  readonly preconditions: readonly RecoveryPrecondition[];
  readonly effect: string;
  /** The journal transition the action would take from the current state, or null when none fits. */
  readonly transition: { readonly from: CommitState; readonly to: CommitState } | null;
  readonly proof: RecoveryProof | null;
}

export interface RecoveryPlan {
  readonly operation_id: string;
  readonly assessment: RecoveryAssessment;
  readonly actions: readonly PlannedRecoveryAction[];
  /** The legal action that fits, or null (nothing to do, wait, retry, or investigate: see assessment). */
  readonly recommended: RecoveryActionName | null;
}

export interface RecoveryPlanContext extends RecoveryContext {
  /** Wall-clock now, to tell a live executor lease from an expired one. */
  readonly nowMs: number;
  /**
   * The lease holder name this apply took to fence first (its own lease does not stop it), if any.
   */
  readonly operatorHolder?: string;
  /** The operator's recorded evidence reference (a ticket, a reconciliation report id), if any. */
  readonly evidenceRef?: string;
  /**
   * What the operator's evidence says the target holds (`--outcome`), for a fence that cannot
   * prove it (a target without a fence capability): committed or not. Absent with an evidence
   * reference: not committed.
   */
  readonly outcome?: RecoveryOutcome;
}

/** The target outcome an operator may assert with evidence where the fence cannot prove one. */
export const RECOVERY_OUTCOMES = ['committed', 'not-committed'] as const;
export type RecoveryOutcome = (typeof RECOVERY_OUTCOMES)[number];
