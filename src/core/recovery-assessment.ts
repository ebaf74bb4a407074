import type { CommitJournalEntry, JournalHistoryRecord } from '../contracts/journal.ts';
import type { CommitState } from '../contracts/states.ts';
import { COMMITTED_STATES } from '../contracts/states.ts';
import { leaseLive } from '../contracts/lease-clock.ts';
import { leaseOverrunMs } from './lease-overrun.ts';
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

/** Why an operator moved COMMIT_UNKNOWN on by evidence of their own (`recovery apply --evidence-ref`). */
export const OPERATOR_EVIDENCE = 'recovery:operator-evidence';

/**
 * The history record that carries the proof of commit, or null: the target fence's, or (where no
 * fence can prove it) an operator's audited statement with an evidence reference.
 */
export function targetProofIn(history: readonly JournalHistoryRecord[]): JournalHistoryRecord | null {
  return (
    history.find(
      (record) =>
        record.to_state === 'TARGET_COMMITTED' &&
        (record.evidence.fence_status === 'committed' ||
          (record.kind === 'audit' && record.evidence.reason === OPERATOR_EVIDENCE)),
    ) ?? null
  );
}

type Judgement = readonly [RecoveryAssessmentKind, string];

/** What the workload a recovery command was given says now (with `--route`). */
export interface RecoveryContext {
  /** Where the workload's fence lives now (TargetConnector.fenceLocation), to compare with the journal's. */
  readonly fenceLocation?: string;
  /** The workload's lease TTL (with `--route`): a lease further ahead than it outlives its bound. */
  readonly leaseTtlMs?: number;
}

/** States in which the journal says the target fence exists (it was prepared before). */
const FENCE_EXPECTED: ReadonlySet<CommitState> = new Set([
  'PREPARED',
  'COMMITTING',
  'TARGET_COMMITTED',
  'COMMITTED_INCOMPLETE',
  'COMPLETE',
]);

/**
 * Divergences between the journal and the fence that no automatic step may settle (a run stops
 * with DPONE_TARGET_COMMIT_DIVERGED or COMMIT_UNKNOWN): each with what to do next. Null: none.
 */
function divergence(
  entry: CommitJournalEntry,
  fence: FenceAnswer | null,
  context: RecoveryContext,
): string | null {
  const recorded = entry.metadata.fence_location;
  if (recorded !== undefined && context.fenceLocation !== undefined && recorded !== context.fenceLocation) {
    return (
      `the journal recorded the target fence at ${recorded}, but this workload now points at ${context.fenceLocation}: ` +
      '`dpone run` refuses (DIVERGED). Next: point the workload back at the recorded fence (target.fence_schema, ' +
      'the URL’s ?schema=), then inspect again'
    );
  }
  if (fence === null) return null;
  if (fence.intentDigest !== null && fence.intentDigest !== entry.intent_digest) {
    return (
      'the target fence belongs to another intent digest for this operation id: another mutation owns it. ' +
      'Next: find which workload wrote it; never retry this one into that target'
    );
  }
  if (fence.epoch === null && fence.status === 'unknown' && FENCE_EXPECTED.has(entry.state)) {
    const where = context.fenceLocation ?? recorded ?? 'where this workload looks';
    return (
      `the journal says the target fence was prepared (${entry.state}), but the target holds no fence for this ` +
      `operation at ${where}: it was dropped, renamed or is looked for elsewhere, and nothing can prove the ` +
      'outcome. Next: restore the fence table (or point the workload at it) and inspect again; do not retry ' +
      'until the target itself shows whether the data landed'
    );
  }
  return null;
}

export function assessRecovery(
  entry: CommitJournalEntry,
  history: readonly JournalHistoryRecord[],
  fence: FenceAnswer | null,
  nowMs: number,
  context: RecoveryContext = {},
): RecoveryAssessment {
  const live = leaseLive(entry.lease, nowMs);
  const proof = targetProofIn(history) !== null;
  const status = fence?.status ?? null;
  const diverged = divergence(entry, fence, context);
  const overrun = live ? leaseOverrunMs(entry, { nowMs, ...context }) : null;
  const [kind, implication]: Judgement =
    diverged !== null
      ? ['inconsistent', diverged]
      : overrun !== null && entry.lease !== null
        ? [
            'operator-action',
            `the lease of holder ${entry.lease.holder} (epoch ${entry.lease.epoch}) expires ` +
              `${Math.round((entry.lease.expires_at_ms - nowMs) / 1000)} s from now, ${Math.round(overrun / 1000)} s ` +
              'beyond its TTL bound: its holder’s clock ran ahead when it wrote it, and every retry waits for it. ' +
              'If that holder is dead, expire-lease ends it (the next run fences before it writes)',
          ]
        : judge(entry.state, status, live);
  return {
    kind,
    state: entry.state,
    version: entry.version,
    fence: status ?? 'not-queried',
    journal_has_target_proof: proof,
    lease_live: live,
    implication,
  };
}

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
