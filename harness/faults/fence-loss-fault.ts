import type { AttemptRecord, CheckRecord } from '../evidence/evidence-types.ts';
import type { CellDraft } from '../plan/cell.ts';
import type { RecordedKill, TraceOccurrence } from '../plan/trace.ts';
import type { FenceLossMode } from '../routes/route.ts';
import { FENCE_LOSS_MODES } from '../routes/route.ts';
import type { FaultSpecOf } from '../scenario/scenario-schema.ts';
import type { CellOutcome, CellRun, FaultModule, PlanContext } from './fault.ts';
import { TAKEOVER_LEASE_TTL_MS } from './fault.ts';
import { groupByDurableState, transitionPoints } from './loss-points.ts';
import { fenceGone } from './loss-applied.ts';
import { cellOperationId, observeLoss } from './loss-observation.ts';
import { lossCellDraft, lostBeforeRetry, missingOperation, selectedModes } from './loss-plan.ts';

interface FenceLossParams {
  readonly mode: FenceLossMode;
  readonly at: TraceOccurrence;
  readonly killed?: RecordedKill;
}

const NEEDS: Readonly<Record<FenceLossMode, readonly string[]>> = {
  drop: ['drop'],
  rename: ['rename'],
  move: ['moveOutOfView'],
  'move-temp': ['moveOutOfView'],
};

/** Transition points once the fence exists (after the first fence preparation of the trace). */
function pointsWithFence(trace: readonly TraceOccurrence[]): TraceOccurrence[] {
  const prepared = trace.findIndex((occurrence) => occurrence.point === 'fence.prepare:after');
  return transitionPoints(prepared < 0 ? [] : trace.slice(prepared + 1));
}

/**
 * The cell of each mode that unsafe variants run on: where the fence is lost once the data
 * committed (drop), and once the mutation may have begun (rename). A target that creates a lost
 * fence again shows there: as a second write, or as a fence row back where the lost one was.
 */
const SENSITIVE: Readonly<Partial<Record<FenceLossMode, string>>> = {
  drop: 'target.commit:after',
  rename: 'cas:PREPARED->COMMITTING:after',
};

function planFenceLoss(spec: FaultSpecOf<'fence-loss'>, context: PlanContext): CellDraft[] {
  const { traces } = context;
  const points = pointsWithFence(traces.clean);
  const drafts: CellDraft[] = [];
  for (const mode of selectedModes(spec.modes, context.lossModes?.fence, FENCE_LOSS_MODES)) {
    for (const [at, ...equivalent] of groupByDurableState(points, traces, spec.distinct_states ?? true))
      drafts.push(
        lossCellDraft('fence-loss', mode, at!, equivalent, traces, {
          sensitive: at!.point === SENSITIVE[mode],
        }),
      );
  }
  return drafts;
}

/**
 * The fence's own place was emptied (dropped, renamed) once the journal recorded it prepared: from
 * then on only a lost fence can be missing, and no later worker may create the operation's fence row
 * again (PrepareFenceMode). Before that (journal PREPARING) a retry prepares the fence afresh.
 */
function emptiedAfterPrepared(params: FenceLossParams): boolean {
  if (params.mode !== 'drop' && params.mode !== 'rename') return false;
  const { point } = params.at;
  // The target's own commit points lie inside COMMITTING (the fence exists only after PREPARING).
  if (point.startsWith('target.commit:')) return true;
  const cas = /^cas:(\w+)->(\w+):(before|after)$/.exec(point);
  const state = cas ? (cas[3] === 'before' ? cas[1] : cas[2]) : null;
  return state !== null && state !== 'PREPARING';
}

async function runFenceLoss(run: CellRun): Promise<CellOutcome> {
  const params = run.cell.params as unknown as FenceLossParams;
  const missing = missingOperation(run, 'fenceOps', NEEDS[params.mode], params.mode);
  if (missing) return missing;
  const ops = run.fixture.fenceOps!;
  const first = await lostBeforeRetry(run, params.at, params.killed);
  if (!first.hit) return { attempts: [first.record], hit: false };
  const attempts: AttemptRecord[] = [first.record];
  const checks: CheckRecord[] = [];
  if (params.mode === 'drop' || params.mode === 'rename') {
    await (params.mode === 'drop' ? ops.drop!() : ops.rename!());
    checks.push(fenceGone(await ops.read(await cellOperationId(run)), params.mode));
  } else {
    // The retry looks for the fence elsewhere; then the settle worker runs with the original view.
    const workloadFile = await ops.moveOutOfView!(params.mode === 'move' ? 'schema' : 'temp');
    await run.expireLeases();
    attempts.push(await run.run('moved-view', { workloadFile }));
  }
  return {
    attempts,
    hit: true,
    expectation: { end: 'stopped' },
    extraChecks: checks,
    observe: async () => ({
      ...(await observeLoss(run)),
      ...(emptiedAfterPrepared(params) ? { fence_removed: true } : {}),
    }),
  };
}

/**
 * fence-loss: the mirror of a lost journal. At every transition point after the fence exists, a
 * first worker is SIGKILLed and the target's fence table is dropped, renamed, or moved out of the
 * retry's view (its search_path names another schema, or pg_temp); then retries run. A fence that
 * is missing where it should be must stop the operation (COMMIT_UNKNOWN or a divergence), never
 * let it write again.
 */
export const fenceLossFault: FaultModule<'fence-loss'> = {
  kind: 'fence-loss',
  leaseTtlMs: () => TAKEOVER_LEASE_TTL_MS,
  plan: planFenceLoss,
  run: runFenceLoss,
};
