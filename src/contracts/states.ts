/** The eight commit states of the spec. */
export const COMMIT_STATES = [
  'PREPARING',
  'PREPARED',
  'COMMITTING',
  'COMMIT_UNKNOWN',
  'TARGET_COMMITTED',
  'COMMITTED_INCOMPLETE',
  'COMPLETE',
  'FAILED_PRE_COMMIT',
] as const;

export type CommitState = (typeof COMMIT_STATES)[number];

/**
 * The single transition table. Every journal adapter and the executor consult it; nothing else
 * decides legality. Beyond the spec's main chain:
 * - COMMITTING -> PREPARED: the fence proved no mutation; the connector-approved retry state keeps the fence.
 * - FAILED_PRE_COMMIT -> PREPARING: ordinary retry under a new lease.
 * - TARGET_COMMITTED -> COMPLETE: completion succeeded without passing through "incomplete".
 * - COMMIT_UNKNOWN -> TARGET_COMMITTED | PREPARED: operator recovery with proof (never automatic).
 * - COMPLETE -> FAILED_PRE_COMMIT: operator `reopen` when the target fence proves the commit was
 *   lost after it was recorded (a failover, an unflushed commit); never automatic.
 */
export const TRANSITIONS: Readonly<Record<CommitState, readonly CommitState[]>> = {
  PREPARING: ['PREPARED', 'FAILED_PRE_COMMIT'],
  PREPARED: ['COMMITTING', 'FAILED_PRE_COMMIT'],
  COMMITTING: ['TARGET_COMMITTED', 'COMMIT_UNKNOWN', 'PREPARED'],
  COMMIT_UNKNOWN: ['TARGET_COMMITTED', 'PREPARED'],
  TARGET_COMMITTED: ['COMMITTED_INCOMPLETE', 'COMPLETE'],
  COMMITTED_INCOMPLETE: ['COMPLETE'],
  COMPLETE: ['FAILED_PRE_COMMIT'],
  FAILED_PRE_COMMIT: ['PREPARING'],
};

/** Transitions only an operator (recovery apply) may take; the executor never does. */
export const OPERATOR_ONLY_TRANSITIONS: readonly (readonly [CommitState, CommitState])[] = [
  ['COMMIT_UNKNOWN', 'TARGET_COMMITTED'],
  ['COMMIT_UNKNOWN', 'PREPARED'],
  ['COMPLETE', 'FAILED_PRE_COMMIT'],
];

/** States in which the target may hold the mutation; success may only be claimed with target proof. */
export const COMMITTED_STATES: ReadonlySet<CommitState> = new Set([
  'TARGET_COMMITTED',
  'COMMITTED_INCOMPLETE',
  'COMPLETE',
]);

export function isCommitState(value: unknown): value is CommitState {
  return typeof value === 'string' && (COMMIT_STATES as readonly string[]).includes(value);
}

export function isLegalTransition(from: CommitState, to: CommitState): boolean {
  return TRANSITIONS[from].includes(to);
}

export function isOperatorOnlyTransition(from: CommitState, to: CommitState): boolean {
  return OPERATOR_ONLY_TRANSITIONS.some(([f, t]) => f === from && t === to);
}
