import type { AttemptRecord, CheckRecord } from '../evidence/evidence-types.ts';
import type { CellDraft } from '../plan/cell.ts';
import type { RecordedKill, TraceOccurrence } from '../plan/trace.ts';
import { occurrenceKey, parseOccurrence } from '../plan/trace.ts';
import type { FaultSpecOf } from '../scenario/scenario-schema.ts';
import { firstKillGroups } from './crash-fault.ts';
import type { CellOutcome, CellRun, FaultModule, PlanContext } from './fault.ts';
import { unverifiedOutcome } from './fault.ts';
import type { TargetImages } from './atomic-visibility.ts';
import { atomicVisibility, targetImages, targetNow } from './atomic-visibility.ts';
import { ZOMBIE_FENCED } from '../evidence/check-names.ts';
import type { Worker } from '../workers/worker.ts';
import { finishedOrStalled } from './zombie-race.ts';

const DEFAULT_PAUSE_TTL_MS = 300;

/** The variants only a held second worker's interleaving reaches (UnsafeVariant.onlyWhereNamed). */
const HELD_SECOND_VARIANTS: readonly string[] = ['lease-blind-cas'];

/**
 * Where a held second worker has prepared a newer epoch at the fence: a zombie resumed then must be
 * refused by the fence itself (the journal no longer stands between it and the target).
 */
const FENCE_HELD = 'fence.prepare:after';

/** The variants only a zombie resumed against a newer prepared epoch reaches (UnsafeVariant.onlyWhereNamed). */
const FENCE_HELD_VARIANTS: readonly string[] = ['ignore-epoch'];

function heldVariants(hold: TraceOccurrence): readonly string[] {
  return hold.point === FENCE_HELD ? FENCE_HELD_VARIANTS : HELD_SECOND_VARIANTS;
}

interface PauseParams {
  /** Where the paused worker stops (in the first attempt at depth 1, in the recovery at depth 2). */
  readonly at: TraceOccurrence;
  /** Where the second worker parks, holding what it took, while the stopped first runs out. */
  readonly holdSecond?: TraceOccurrence;
  /** Depth 2: the first-attempt kill the paused recovery follows, and its recorded state. */
  readonly first?: TraceOccurrence;
  readonly killed?: RecordedKill;
}

/** The states a recovery reconciles: a worker killed from COMMITTING on left them for the next. */
const RECONCILED = /^cas:(COMMITTING|TARGET_COMMITTED|COMMITTED_INCOMPLETE)->/;

/**
 * The part of a recovery run in which its state differs from anything a clean run passes: from its
 * start until the journal moved out of the state it found (or the whole run, when it never does).
 */
function reconcileWindow(recovery: readonly TraceOccurrence[]): readonly TraceOccurrence[] {
  const end = recovery.findIndex((o) => RECONCILED.test(o.point) && o.point.endsWith(':after'));
  return end < 0 ? recovery : recovery.slice(0, end + 1);
}

/**
 * Where a paused zombie can do harm to the mutation: the commit window (as crash) and the fence
 * preparation, where a late worker meets a fence a newer epoch holds.
 */
function sensitiveAt(trace: readonly TraceOccurrence[], at: TraceOccurrence): boolean {
  const index = trace.findIndex((o) => occurrenceKey(o) === occurrenceKey(at));
  const from = trace.findIndex((o) => o.point === 'cas:PREPARED->COMMITTING:after');
  const to = trace.findIndex((o) => o.point === 'cas:COMMITTING->TARGET_COMMITTED:before');
  return at.point === 'fence.prepare:before' || (from >= 0 && index > from && (to < 0 || index <= to));
}

/** Points after which the durable state changed: a journal write, the fence, the target, the state. */
const EFFECT =
  /^(journal\.create|lease\.acquire|fence\.prepare|cas:.*|target\.commit|state\.complete):(after|sent)$/;

/**
 * First-attempt kills grouped by the durable state they leave. From the recorded kills'
 * fingerprints when the route computes them (crash's groups); otherwise by the protocol's own
 * record of what a kill there left: kills between the same two durable effects (a journal write,
 * the fence's preparation, the target's COMMIT sent or done, the state written) leave one state.
 */
function killGroups(traces: PlanContext['traces'], distinct: boolean): TraceOccurrence[][] {
  if (!distinct || traces.snapshots?.size) return firstKillGroups(traces, distinct);
  const groups = new Map<number, TraceOccurrence[]>();
  let effects = 0;
  for (const at of traces.clean) {
    if (EFFECT.test(at.point)) effects += 1;
    groups.set(effects, [...(groups.get(effects) ?? []), at]);
  }
  return [...groups.values()];
}

function planPause(spec: FaultSpecOf<'pause'>, { traces }: PlanContext): CellDraft[] {
  const late = spec.late_rows ?? 0;
  const lateId = late > 0 ? `+late${late}` : '';
  const lateFault = late > 0 ? { late_rows: late } : {};
  if (spec.points) {
    const holdSecond = spec.hold_second_at === undefined ? undefined : parseOccurrence(spec.hold_second_at);
    const held = holdSecond ? { hold_second_at: occurrenceKey(holdSecond) } : {};
    return spec.points.map((text) => {
      const at = parseOccurrence(text);
      return {
        localId: `${occurrenceKey(at)}${holdSecond ? `>held@${occurrenceKey(holdSecond)}` : ''}${lateId}`,
        fault: { kind: 'pause', point: at.point, hit: at.hit, ...held, ...lateFault },
        params: { at, ...(holdSecond ? { holdSecond } : {}) } satisfies PauseParams,
        sensitive: true,
        ...(holdSecond ? { variants: heldVariants(holdSecond) } : {}),
      };
    });
  }
  const drafts: CellDraft[] = traces.clean.map((at) => ({
    localId: `d1/${occurrenceKey(at)}${lateId}`,
    fault: { kind: 'pause', point: at.point, hit: at.hit, attempt: 1, ...lateFault },
    params: { at } satisfies PauseParams,
    sensitive: sensitiveAt(traces.clean, at),
  }));
  if ((spec.depth ?? 2) < 2) return drafts;
  const committing = traces.clean.findIndex((o) => o.point === 'cas:PREPARED->COMMITTING:after');
  for (const group of killGroups(traces, spec.distinct_states ?? true)) {
    const [first, ...equivalent] = group;
    const index = traces.clean.findIndex((o) => occurrenceKey(o) === occurrenceKey(first!));
    // Before COMMITTING a recovery starts the clean path over: depth 1 pauses cover it.
    if (committing < 0 || index < committing) continue;
    for (const at of reconcileWindow(traces.recovery.get(occurrenceKey(first!)) ?? [])) {
      drafts.push({
        localId: `d2/${occurrenceKey(first!)}>${occurrenceKey(at)}${lateId}`,
        fault: {
          kind: 'pause',
          point: first!.point,
          hit: first!.hit,
          attempt: 2,
          recovery_point: occurrenceKey(at),
          ...lateFault,
          ...(equivalent.length > 0 ? { equivalent_points: equivalent.map(occurrenceKey) } : {}),
        },
        params: {
          at,
          first: first!,
          killed: traces.snapshots?.get(occurrenceKey(first!)),
        } satisfies PauseParams,
        sensitive: false,
      });
    }
  }
  return drafts;
}

async function runPause(run: CellRun, spec: FaultSpecOf<'pause'>): Promise<CellOutcome> {
  const params = run.cell.params as unknown as PauseParams;
  const late = spec.late_rows ?? 0;
  if (late > 0 && !run.fixture.addSourceRows)
    return unverifiedOutcome(`route ${run.cell.route} cannot add rows to its source during a cell`);
  const attempts: AttemptRecord[] = [];
  const { inspector } = run.fixture;
  // Before any worker: a stopped worker's mutation is invisible, so the target holds one of these.
  const images = await targetImages(inspector);
  const atomic: CheckRecord[] = [];
  if (params.first) {
    // Depth 2: the first attempt died at `first` (its recorded state, when the route can copy it).
    const recorded = run.cell.variant === null && params.killed !== undefined;
    const first =
      recorded && (await run.restore(params.killed!.dir))
        ? { record: { ...params.killed!.first, role: 'first-recorded' }, hit: true }
        : await run.killAt('first', params.first);
    attempts.push(first.record);
    if (!first.hit) return { attempts, hit: false };
    atomic.push(
      await atomicVisibility(inspector, images, `after the kill at ${occurrenceKey(params.first)}`),
    );
    await run.expireLeases();
  }
  await using paused = run.start('paused', { stop: params.at });
  if (!(await paused.parked())) return { attempts: [...attempts, await paused.result()], hit: false };
  paused.pause();
  atomic.push(
    await atomicVisibility(inspector, images, `while the worker was stopped at ${occurrenceKey(params.at)}`),
  );
  await run.expireLeases();
  // Late source rows: the zombie holds another batch than the next holder reads.
  if (late > 0) await run.fixture.addSourceRows!(late);
  // Awaited here: `paused` is disposed (killed) when this scope ends.
  if (params.holdSecond)
    return await runHeldSecond(run, paused, params.holdSecond, [...attempts], atomic, images);
  await using second = run.start('second');
  const secondFirst = (await finishedOrStalled(second)) === 'finished';
  paused.continue();
  paused.resume();
  attempts.push(await paused.result(), await second.result());
  const order: CheckRecord = {
    name: 'pause-interleaving',
    verdict: 'PASS',
    detail: secondFirst
      ? 'the second worker finished while the first was stopped'
      : 'the stopped worker held a lock the second needed; it was continued while the second still ran',
  };
  // The zombie ran out after the second worker: it was the late retry a settle worker would be.
  return { attempts, hit: true, extraChecks: [...atomic, order], settle: 'unless-complete' };
}

/**
 * The second worker parks at `hold` (the lease it took there still held, the journal not yet
 * advanced past what the zombie expects); the stopped first is continued and runs out; then the
 * second is released. Not left to the machine's timing: the zombie's next journal write always
 * meets a journal another executor has leased, which only a lease-checked write refuses.
 */
async function runHeldSecond(
  run: CellRun,
  paused: Worker,
  hold: TraceOccurrence,
  attempts: AttemptRecord[],
  atomic: CheckRecord[],
  images: TargetImages,
): Promise<CellOutcome> {
  await using second = run.start('second', { stop: hold });
  const held = (await second.parked()) !== null;
  paused.continue();
  paused.resume();
  attempts.push(await paused.result());
  // Read from the target's own rows while the second still holds: only the zombie can have written.
  const fenced = held && hold.point === FENCE_HELD ? [await zombieFenced(run, images, hold)] : [];
  if (held) second.resume();
  attempts.push(await second.result());
  const order: CheckRecord = {
    name: 'pause-interleaving',
    verdict: held ? 'PASS' : 'UNKNOWN',
    detail: held
      ? `the second worker held at ${occurrenceKey(hold)} while the stopped first ran out; then it was released`
      : `the second worker ended before it reached ${occurrenceKey(hold)}: the interleaving was not reached`,
  };
  return { attempts, hit: true, extraChecks: [...atomic, order, ...fenced], settle: 'unless-complete' };
}

/**
 * `zombie-fenced`: the second worker took over and prepared a newer epoch at the fence, then held;
 * the zombie, resumed into its commit, must have been refused by the fence itself: the target still
 * holds its rows from before. The load there means the zombie committed under a superseded epoch
 * (a guard that ignores the epoch lets it through: the mutation count alone cannot tell, since the
 * second then finds the operation committed and writes nothing).
 */
async function zombieFenced(run: CellRun, images: TargetImages, hold: TraceOccurrence): Promise<CheckRecord> {
  const now = await targetNow(run.fixture.inspector);
  const name = ZOMBIE_FENCED;
  if (now.digest === images.before)
    return {
      name,
      verdict: 'PASS',
      detail: `the zombie, resumed after the next holder's ${occurrenceKey(hold)}, wrote nothing: the fence refused it`,
    };
  return {
    name,
    verdict: 'FAIL',
    detail:
      now.digest === images.loaded
        ? `the zombie committed the load after the next holder had prepared a newer epoch at the fence (${occurrenceKey(hold)})`
        : `the zombie changed the target (${now.rows} rows) after the next holder had prepared a newer epoch at the fence`,
  };
}

/**
 * pause: SIGSTOP a worker at a fault point, let its lease expire, run a second worker (to its end,
 * or until it waits on a lock the stopped one holds), then SIGCONT the first and let it run out. A
 * zombie must not commit a second time, nor undo the next holder's commit: the fence's epoch
 * stops it. With `late_rows`, rows arrive in the source partition while the first is stopped, so
 * the zombie's batch and the next holder's differ. Depth 1 at every point of the
 * clean trace; depth 2 after each distinct first-attempt kill from COMMITTING on, at every point of
 * the recovery run while it reconciles (where its state differs from anything a clean run passes).
 * `points` names explicit first-attempt points instead.
 */
export const pauseFault: FaultModule<'pause'> = {
  kind: 'pause',
  leaseTtlMs: (spec) => spec.lease_ttl_ms ?? DEFAULT_PAUSE_TTL_MS,
  plan: planPause,
  run: runPause,
};
