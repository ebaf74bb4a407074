import { ERROR_CODES, codedOr, isDponeError } from '../contracts/errors.ts';
import type { CommitJournalEntry, JournalHistoryRecord } from '../contracts/journal.ts';
import type { FenceAnswer, TargetConnector } from '../ports/connector.ts';
import type { TargetCommitJournalPort } from '../ports/journal.ts';
import type { RecoveryApplyDeps } from './recovery-apply-rules.ts';
import { assertLegal } from './recovery-apply-rules.ts';
import { recoveryConflict } from './recovery-audit.ts';
import type { PlannedRecoveryAction, RecoveryActionName, RecoveryPlanContext } from './recovery-actions.ts';
import { planRecovery } from './recovery-planner.ts';
import { safe } from './fence-decision.ts';

/** The lease an operator takes to fence first when the workload gives no TTL. */
const OPERATOR_LEASE_TTL_MS = 30_000;

export function chooseAction(
  entry: CommitJournalEntry,
  history: readonly JournalHistoryRecord[],
  fence: FenceAnswer | null,
  context: RecoveryPlanContext,
  action: RecoveryActionName,
): PlannedRecoveryAction {
  return planRecovery(entry, history, fence, context).actions.find((candidate) => candidate.name === action)!;
}

/** What an apply acts on after fencing first (unchanged when the action claims no fence proof). */
export interface Fenced {
  readonly entry: CommitJournalEntry;
  readonly fence: FenceAnswer | null;
  readonly chosen: PlannedRecoveryAction;
  /** The lease epoch raised in the fence before the proof was read. */
  readonly fenceEpoch?: number;
}

/**
 * Operator actions fence first: an action that claims the fence's proof takes the next lease
 * epoch (holder `recovery/<actor>`), raises it in the target fence (never creating it) and plans
 * again from what the fence holds then, so no holder of an older epoch can commit after the proof
 * was read. If the action is no longer legal, or anything fails, the lease is handed back.
 */
export async function fenceFirst(input: {
  readonly deps: RecoveryApplyDeps;
  readonly entry: CommitJournalEntry;
  readonly history: readonly JournalHistoryRecord[];
  readonly fence: FenceAnswer | null;
  readonly context: RecoveryPlanContext;
  readonly action: RecoveryActionName;
  readonly actor: string;
  readonly chosen: PlannedRecoveryAction;
  readonly call: <T>(operation: () => Promise<T>) => Promise<T>;
}): Promise<Fenced> {
  const { deps, entry, chosen, call } = input;
  const raise = deps.fence?.prepareFence;
  if (!chosen.proof?.startsWith('fence:') || raise === undefined || deps.withoutFence === true)
    return { entry, fence: input.fence, chosen };
  const { faults, journal } = deps;
  const holder = `recovery/${input.actor}`;
  await faults.hit('recovery.apply:lease:before');
  const leased = await call(() =>
    journal.acquireLease({
      operationId: entry.operation_id,
      expectedVersion: entry.version,
      holder,
      ttlMs: deps.leaseTtlMs ?? OPERATOR_LEASE_TTL_MS,
      nowMs: input.context.nowMs,
    }),
  ).catch((error: unknown) => {
    throw isDponeError(error, ERROR_CODES.CAS_CONFLICT)
      ? recoveryConflict(
          entry,
          'the journal entry changed, or a live executor holds its lease; nothing was applied',
          error,
        )
      : error;
  });
  await faults.hit('recovery.apply:lease:after');
  try {
    const fenceEpoch = leased.lease!.epoch;
    await faults.hit('recovery.apply:fence.raise:before');
    const fence = await raiseFence(raise.bind(deps.fence), leased, fenceEpoch, holder);
    await faults.hit('recovery.apply:fence.raise:after');
    const replanned = chooseAction(
      leased,
      input.history,
      fence,
      { ...input.context, operatorHolder: holder },
      input.action,
    );
    assertLegal(leased, replanned);
    return { entry: leased, fence, chosen: replanned, fenceEpoch };
  } catch (error) {
    await handBack(journal, leased, deps.clock.nowMs());
    throw error;
  }
}

/** Raises the fence to the operator's epoch (never creating it) and answers what it holds now. */
async function raiseFence(
  prepareFence: TargetConnector['prepareFence'],
  entry: CommitJournalEntry,
  epoch: number,
  holder: string,
): Promise<FenceAnswer> {
  const ref = { operationId: entry.operation_id, epoch, intentDigest: entry.intent_digest, holder };
  const answer = await codedOr(
    () => prepareFence(ref, { create: false }),
    ERROR_CODES.FENCE_UNAVAILABLE,
    'the target fence could not be raised to the operator’s epoch; nothing was applied',
    safe(entry),
  );
  // A fence above the operator's epoch (a journal that lost epochs) proves nothing for this epoch.
  if (answer.epoch !== null && !answer.installed && answer.status !== 'committed') {
    throw recoveryConflict(
      entry,
      `the target fence holds epoch ${answer.epoch}, at or above the operator’s ${epoch}: it cannot be fenced ` +
        'from this journal; nothing was applied (inspect)',
    );
  }
  return answer;
}

/**
 * Hands back the lease an apply took to fence first when it then applied nothing. Best effort: if
 * the journal cannot be reached the lease simply expires (by the journal's clock).
 */
export async function handBack(journal: TargetCommitJournalPort, leased: CommitJournalEntry, nowMs: number) {
  await journal
    .expireLease({
      operationId: leased.operation_id,
      expectedVersion: leased.version,
      evidence: {
        reason: 'recovery:lease-returned',
        ...(leased.lease ? { holder: leased.lease.holder } : {}),
      },
      nowMs,
    })
    .catch(() => undefined);
}
