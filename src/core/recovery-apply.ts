import { DponeError, ERROR_CODES, codedOr, invalidInput, isDponeError } from '../contracts/errors.ts';
import type { AuditRecord, CommitJournalEntry, RecordedResult } from '../contracts/journal.ts';
import type { CommitState } from '../contracts/states.ts';
import type { FenceAnswer, TargetConnector } from '../ports/connector.ts';
import type { StateSink } from '../ports/state-sink.ts';
import { journalCall } from './journal-call.ts';
import type { RecoveryApplyDeps } from './recovery-apply-rules.ts';
import { assertLegal } from './recovery-apply-rules.ts';
import { EXPIRE_LEASE_REASON } from './recovery-expire-lease.ts';
import {
  assertActor,
  assertReason,
  assertReference,
  auditRecord,
  auditReference,
  recoveryConflict,
} from './recovery-audit.ts';
import { chooseAction, fenceFirst, handBack } from './recovery-fence-first.ts';
import type { RecoveryActionName, RecoveryOutcome } from './recovery-actions.ts';
import { REOPEN, raiseEpochBeforeReopen } from './recovery-reopen.ts';
import { safe } from './fence-decision.ts';

export interface RecoveryApplyRequest {
  readonly operationId: string;
  readonly action: RecoveryActionName;
  /** The journal version the operator saw in inspect/plan. */
  readonly expectedVersion: number;
  /** The platform identity applying the action. */
  readonly actor: string;
  readonly reason: string;
  readonly evidenceRef?: string;
  /** What the operator's evidence says the target holds, where the fence cannot prove it. */
  readonly outcome?: RecoveryOutcome;
}

export interface RecoveryApplyResult {
  readonly action: RecoveryActionName;
  readonly before: { readonly state: CommitState; readonly version: number };
  readonly after: CommitJournalEntry;
  readonly audit: AuditRecord;
}

/** Fault points of apply, in the order a clean apply passes them (fence and state steps are optional). */
export const RECOVERY_APPLY_POINTS = [
  'recovery.apply:read:before',
  'recovery.apply:read:after',
  'recovery.apply:fence.query:before',
  'recovery.apply:fence.query:after',
  'recovery.apply:lease:before',
  'recovery.apply:lease:after',
  'recovery.apply:fence.raise:before',
  'recovery.apply:fence.raise:after',
  'recovery.apply:state.complete:before',
  'recovery.apply:state.complete:after',
  'recovery.apply:cas:before',
  'recovery.apply:cas:after',
] as const;

/**
 * Applies one recovery action: reads the entry, refuses a stale expected version, re-plans from what
 * the journal and the fence say now, and writes the transition with one compare-and-set carrying the
 * audit record. Any concurrent change (another apply, a worker) makes the compare-and-set lose:
 * DPONE_TARGET_COMMIT_RECOVERY_CONFLICT, and nothing was changed.
 */
export async function applyRecovery(
  deps: RecoveryApplyDeps,
  request: RecoveryApplyRequest,
): Promise<RecoveryApplyResult> {
  const { journal, faults } = deps;
  const actor = assertActor(request.actor, 'platform identity');
  const reason = assertReason(request.reason, 'reason');
  const evidenceRef =
    request.evidenceRef === undefined ? undefined : assertReference(request.evidenceRef, 'evidence-ref');
  const call = <T>(operation: () => Promise<T>) => journalCall(operation, request.operationId);

  await faults.hit('recovery.apply:read:before');
  const entry = await call(() => journal.get(request.operationId));
  if (entry === null) {
    throw invalidInput('no journal entry exists for this operation id', {
      field: 'operation_id',
      operationId: request.operationId,
    });
  }
  const history = await call(() => journal.history(request.operationId));
  await faults.hit('recovery.apply:read:after');
  if (entry.version !== request.expectedVersion) {
    throw recoveryConflict(
      entry,
      `the journal entry is at version ${entry.version}, not the expected ${request.expectedVersion}: re-run inspect and plan`,
    );
  }

  let fence: FenceAnswer | null = null;
  if (deps.fence) {
    await faults.hit('recovery.apply:fence.query:before');
    fence = await queryFence(deps.fence, entry);
    await faults.hit('recovery.apply:fence.query:after');
  }

  const nowMs = deps.clock.nowMs();
  const context = {
    nowMs,
    ...(deps.leaseTtlMs !== undefined ? { leaseTtlMs: deps.leaseTtlMs } : {}),
    ...(evidenceRef ? { evidenceRef } : {}),
    ...(request.outcome ? { outcome: request.outcome } : {}),
  };
  let chosen = chooseAction(entry, history, fence, context, request.action);
  assertLegal(entry, chosen);

  // Fence first (recovery-fence-first.ts): no holder of an older epoch can commit after the proof.
  const fenced = await fenceFirst({
    deps,
    entry,
    history,
    fence,
    context,
    action: request.action,
    actor,
    chosen,
    call,
  });
  const { fenceEpoch } = fenced;
  let current = fenced.entry;
  ({ fence, chosen } = fenced);
  const transition = chosen.transition!;
  // A reopen the fence-first lease did not cover (the operator's evidence for a fence gone with the
  // data) still raises the journal's epoch above every epoch the fence has seen before it reopens.
  let leased = fenceEpoch !== undefined;
  if (request.action === REOPEN && !leased) {
    current = await call(() => raiseEpochBeforeReopen(journal, entry, fence!, nowMs));
    leased = true;
  }

  if (request.action === 'complete-state' && deps.state) {
    await faults.hit('recovery.apply:state.complete:before');
    await completeState(deps.state, current);
    await faults.hit('recovery.apply:state.complete:after');
  }

  const audit: AuditRecord = {
    ...auditRecord({
      actor,
      action: request.action,
      reason,
      atMs: nowMs,
      reference: auditReference(entry.operation_id, current.version + 1, evidenceRef),
    }),
    ...(fenceEpoch !== undefined ? { fence_epoch: fenceEpoch } : {}),
  };
  const evidence = {
    reason: `recovery:${chosen.proof}`,
    holder: actor,
    ...(fence ? { fence_status: fence.status } : {}),
    ...(fence && (fence.committedEpoch ?? fence.epoch) !== null
      ? { fence_epoch: (fence.committedEpoch ?? fence.epoch)! }
      : {}),
    ...(fence?.rowsWritten != null ? { rows_written: fence.rowsWritten } : {}),
  };
  await faults.hit('recovery.apply:cas:before');
  let after: CommitJournalEntry;
  try {
    after = await call(() =>
      request.action === 'expire-lease'
        ? journal.expireLease({
            operationId: entry.operation_id,
            expectedVersion: current.version,
            evidence: { reason: EXPIRE_LEASE_REASON, holder: actor },
            nowMs,
            audit,
          })
        : journal.compareAndSet({
            operationId: entry.operation_id,
            expectedVersion: current.version,
            expectedStates: new Set([current.state]),
            nextState: transition.to,
            evidence,
            nowMs,
            audit,
            releaseLease: true,
            ...(transition.to === 'TARGET_COMMITTED' ? { result: provenResult(current, fence) } : {}),
          }),
    );
  } catch (error) {
    if (leased) await handBack(journal, current, deps.clock.nowMs());
    if (
      isDponeError(error, ERROR_CODES.CAS_CONFLICT) ||
      isDponeError(error, ERROR_CODES.ILLEGAL_TRANSITION)
    ) {
      throw recoveryConflict(
        entry,
        'the journal entry changed concurrently; nothing was applied: re-run inspect and plan',
        error,
      );
    }
    throw error;
  }
  await faults.hit('recovery.apply:cas:after');
  return { action: request.action, before: { state: entry.state, version: entry.version }, after, audit };
}

async function completeState(state: StateSink, entry: CommitJournalEntry): Promise<void> {
  try {
    await state.complete(entry);
  } catch (error) {
    throw new DponeError(
      ERROR_CODES.COMMITTED_INCOMPLETE,
      'state or evidence could not be made durable; the journal was not changed',
      safe(entry),
      { cause: error },
    );
  }
}

function queryFence(
  target: Pick<TargetConnector, 'queryFence'>,
  entry: CommitJournalEntry,
): Promise<FenceAnswer> {
  return codedOr(
    () => target.queryFence(entry.operation_id),
    ERROR_CODES.FENCE_UNAVAILABLE,
    'the target fence could not be queried; nothing was applied',
    safe(entry),
  );
}

/** What TARGET_COMMITTED records: the fence's numbers, or none where an operator's evidence decided. */
function provenResult(entry: CommitJournalEntry, fence: FenceAnswer | null): RecordedResult {
  return {
    rows_written: fence?.rowsWritten ?? 0,
    fence_epoch: fence?.committedEpoch ?? fence?.epoch ?? 0,
    target_identity: entry.metadata.target_identity,
  };
}
