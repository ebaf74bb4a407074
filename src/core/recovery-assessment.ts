import type { CommitJournalEntry, JournalHistoryRecord } from '../contracts/journal.ts';
import type { CommitState } from '../contracts/states.ts';
import { COMMITTED_STATES } from '../contracts/states.ts';
import type { FenceAnswer, FenceStatus } from '../ports/connector.ts';

/**
 * What the journal and the target fence imply together, from a fixed vocabulary:
 * - complete: nothing to do.
 * - retry-safe: no mutation can have begun; an ordinary `dpone run` retry is safe.
 * - wait-for-lease: a live executor holds the lease; wait for it to finish or expire.
 * - run-reconciles: a `dpone run` retry reconciles with the fence by itself (COMMITTING).
 * - operator-action: a recovery action fits (see the plan's recommendation).
 * - needs-evidence: COMMIT_UNKNOWN and the fence cannot prove the outcome; the operator must
 *   investigate and record evidence, or query a fence that can answer.
 * - inconsistent: the journal and the fence contradict each other; do not act, investigate.
 */
export type RecoveryAssessmentKind =
  | 'complete'
  | 'retry-safe'
  | 'wait-for-lease'
  | 'run-reconciles'
  | 'operator-action'
  | 'needs-evidence'
  | 'inconsistent';

export interface RecoveryAssessment {
  readonly kind: RecoveryAssessmentKind;
  readonly state: CommitState;
  readonly version: number;
  /** The fence's answer now, or `not-queried` when no route was given. */
  readonly fence: FenceStatus | 'not-queried';
  /** Whether the journal history already holds the fence's proof of commit. */
  readonly journal_has_target_proof: boolean;
  readonly lease_live: boolean;
  /** One or two sentences for the operator. */
  readonly implication: string;
}

/** The history record that carries the target's proof of commit, or null. */
export function targetProofIn(history: readonly JournalHistoryRecord[]): JournalHistoryRecord | null {
  return (
    history.find(
      (record) => record.to_state === 'TARGET_COMMITTED' && record.evidence.fence_status === 'committed',
    ) ?? null
  );
}

export function assessRecovery(
  entry: CommitJournalEntry,
  history: readonly JournalHistoryRecord[],
  fence: FenceAnswer | null,
  nowMs: number,
): RecoveryAssessment {
  const leaseLive = entry.lease !== null && entry.lease.expires_at_ms > nowMs;
  const proof = targetProofIn(history) !== null;
  const status = fence?.status ?? null;
  const [kind, implication] = judge(entry.state, status, leaseLive);
  return {
    kind,
    state: entry.state,
    version: entry.version,
    fence: status ?? 'not-queried',
    journal_has_target_proof: proof,
    lease_live: leaseLive,
    implication,
  };
}

type Judgement = readonly [RecoveryAssessmentKind, string];

function judge(state: CommitState, fence: FenceStatus | null, leaseLive: boolean): Judgement {
  if (COMMITTED_STATES.has(state) && fence === 'not-committed') {
    return [
      'inconsistent',
      `the journal says the target committed (${state}) but the fence now says not-committed: do not act; investigate the target`,
    ];
  }
  if (
    !COMMITTED_STATES.has(state) &&
    state !== 'COMMITTING' &&
    state !== 'COMMIT_UNKNOWN' &&
    fence === 'committed'
  ) {
    return [
      'inconsistent',
      `the journal says no mutation began (${state}) but the fence proves a commit: do not retry; investigate`,
    ];
  }
  if (leaseLive && state !== 'COMPLETE') {
    return [
      'wait-for-lease',
      `a live executor holds the lease in ${state}: wait for it to finish or its lease to expire`,
    ];
  }
  switch (state) {
    case 'COMPLETE':
      return ['complete', 'the operation is complete: target, state and evidence agree; nothing to do'];
    case 'PREPARING':
    case 'PREPARED':
    case 'FAILED_PRE_COMMIT':
      return [
        'retry-safe',
        `no target mutation can have begun (${state}): an ordinary \`dpone run\` retry is safe`,
      ];
    case 'TARGET_COMMITTED':
    case 'COMMITTED_INCOMPLETE':
      return [
        'operator-action',
        `the target committed (${state}); only state and evidence are missing: complete-state (or a \`dpone run\` retry) finishes it without writing the target`,
      ];
    case 'COMMITTING':
      return fence === 'not-committed'
        ? [
            'operator-action',
            'the fence proves no mutation landed: mark-not-committed returns the operation to PREPARED',
          ]
        : [
            'run-reconciles',
            fence === 'committed'
              ? 'the fence proves the commit: a `dpone run` retry records it and completes without writing the target'
              : 'a `dpone run` retry queries the fence and moves the journal on proof (or to COMMIT_UNKNOWN)',
          ];
    case 'COMMIT_UNKNOWN':
      if (fence === 'committed')
        return [
          'operator-action',
          'the fence now proves the commit: resolve-unknown records it (TARGET_COMMITTED)',
        ];
      if (fence === 'not-committed')
        return [
          'operator-action',
          'the fence now proves no mutation: resolve-unknown returns it to PREPARED (retryable)',
        ];
      return [
        'needs-evidence',
        fence === null
          ? 'the outcome is unknown: query the fence (--route) or investigate and record evidence (--evidence-ref)'
          : 'the fence cannot prove the outcome: investigate the target and record evidence (--evidence-ref) before resolve-unknown',
      ];
  }
}
