import { casPoint, isCasPoint } from '../../src/contracts/fault-point-names.ts';
import type { CellDraft } from '../plan/cell.ts';
import { aimKills, killLanding } from '../plan/mutation-window.ts';
import { deriveSeed, randomInt, seededRandom } from '../data/seeded-random.ts';
import type { RecordedKill, TraceOccurrence } from '../plan/trace.ts';
import { occurrenceKey } from '../plan/trace.ts';
import type { CellOutcome, CellRun, FaultModule, PlanContext } from './fault.ts';
import { TAKEOVER_LEASE_TTL_MS } from './fault.ts';
import { atomicVisibility, targetImages } from './atomic-visibility.ts';
import type { TargetImages } from './atomic-visibility.ts';
import type { FaultSpecOf } from '../scenario/scenario-schema.ts';

/** Random kill delays, from worker start: wide enough to land in start-up, the run and after it. */
const RANDOM_DELAY_MS = { min: 40, max: 700 } as const;

interface CrashParams {
  readonly first?: TraceOccurrence;
  /** The recorded state right after the first-attempt kill (depth 2), when the route can copy it. */
  readonly killed?: RecordedKill;
  readonly recovery?: TraceOccurrence;
  readonly delayMs?: number;
  /** Mutation-window kill: count delayMs from the worker's first pass of this point, not its start. */
  readonly after?: TraceOccurrence;
  /** Mutation-window kill: the point that ends the window (a kill is inside while it is not passed). */
  readonly windowEnd?: string;
}

/**
 * The mutation window: after the CAS into COMMITTING up to the CAS that records the target's
 * proof. Kills there are where an unsafe target shows a duplicate, so that window is the crash
 * part of the sensitivity subset.
 */
function commitWindow(trace: readonly TraceOccurrence[]): { from: number; to: number } {
  const from = trace.findIndex((o) => o.point === casPoint('PREPARED', 'COMMITTING', 'after'));
  const to = trace.findIndex((o) => o.point === casPoint('COMMITTING', 'TARGET_COMMITTED', 'before'));
  return { from: from < 0 ? 0 : from + 1, to: to < 0 ? trace.length - 1 : to };
}

/**
 * First-attempt kills grouped by the durable state they left (trace order kept; the first of a
 * group represents it). Without fingerprints, or when asked for every kill, each is its own group.
 */
export function firstKillGroups(traces: PlanContext['traces'], distinct: boolean): TraceOccurrence[][] {
  const groups = new Map<string, TraceOccurrence[]>();
  for (const first of traces.clean) {
    const fingerprint = traces.snapshots?.get(occurrenceKey(first))?.fingerprint;
    const key = distinct && fingerprint ? fingerprint : `point:${occurrenceKey(first)}`;
    groups.set(key, [...(groups.get(key) ?? []), first]);
  }
  return [...groups.values()];
}

function planCrash(spec: FaultSpecOf<'crash'>, { seed, traces }: PlanContext): CellDraft[] {
  const depth = spec.depth ?? 2;
  const randomCount = spec.random ?? 4;
  const window = commitWindow(traces.clean);
  // `recovery_points: transitions` keeps the journal's compare-and-set points (`cas:A->B:before|after`).
  const recoveryKills = (trace: readonly TraceOccurrence[]) =>
    spec.recovery_points === 'transitions' ? trace.filter((o) => isCasPoint(o.point)) : trace;
  const drafts: CellDraft[] = traces.clean.map((first, index) => ({
    localId: `d1/${occurrenceKey(first)}`,
    fault: { kind: 'crash', point: first.point, hit: first.hit, attempt: 1 },
    params: { first, killed: traces.snapshots?.get(occurrenceKey(first)) } satisfies CrashParams,
    sensitive: index >= window.from && index <= window.to,
  }));
  if (depth >= 2) {
    for (const group of firstKillGroups(traces, spec.distinct_states ?? true)) {
      const [first, ...equivalent] = group;
      for (const recovery of recoveryKills(traces.recovery.get(occurrenceKey(first!)) ?? [])) {
        drafts.push({
          localId: `d2/${occurrenceKey(first!)}>${occurrenceKey(recovery)}`,
          fault: {
            kind: 'crash',
            point: first!.point,
            hit: first!.hit,
            attempt: 2,
            recovery_point: occurrenceKey(recovery),
            ...(equivalent.length > 0 ? { equivalent_points: equivalent.map(occurrenceKey) } : {}),
          },
          params: {
            first: first!,
            recovery,
            killed: traces.snapshots?.get(occurrenceKey(first!)),
          } satisfies CrashParams,
          sensitive: false,
        });
      }
    }
  }
  if (spec.random_window === 'mutation') return [...drafts, ...mutationKills(seed, randomCount, traces)];
  for (let index = 1; index <= randomCount; index++) {
    const random = seededRandom(deriveSeed(seed, `crash-random-${index}`));
    const delayMs = randomInt(random, RANDOM_DELAY_MS.min, RANDOM_DELAY_MS.max);
    drafts.push({
      localId: `random/seed${seed}-${index}`,
      fault: { kind: 'crash', attempt: 1, delay_ms: delayMs },
      params: { delayMs } satisfies CrashParams,
      sensitive: false,
    });
  }
  return drafts;
}

/**
 * Random kills inside the rows' write: a seeded fraction of the mutation window the reference run
 * measured, counted from the worker's own pass of the window's begin point. Without a measured
 * window (a plan replayed from stored traces) the delay is unknown: the ids stay, the fault has none.
 */
function mutationKills(seed: number, count: number, traces: PlanContext['traces']): CellDraft[] {
  const window = traces.mutationWindow;
  const kills = window ? aimKills(seed, count, window) : [];
  return Array.from({ length: count }, (_, index) => {
    const kill = kills[index];
    return {
      localId: `random/mutation/seed${seed}-${index + 1}`,
      fault: {
        kind: 'crash',
        attempt: 1,
        ...(window && kill
          ? {
              after_point: window.begin,
              delay_ms: kill.delayMs,
              window_fraction: kill.fraction,
              window_ms: window.lengthMs,
              window_end: window.end,
            }
          : {}),
      },
      params: (window && kill
        ? { delayMs: kill.delayMs, after: { point: window.begin, hit: 1 }, windowEnd: window.end }
        : {}) satisfies CrashParams,
      sensitive: false,
    };
  });
}

/**
 * Lets the worker past the window's begin point, kills it `delayMs` later, and says where the kill
 * landed from the worker's own trace: `inside` while it had not passed the window's end yet.
 */
async function runMutationKill(
  run: CellRun,
  params: CrashParams,
  images: TargetImages,
): Promise<CellOutcome> {
  await using worker = run.start('first', { stop: params.after! });
  if (!(await worker.parked())) return { attempts: [await worker.result()], hit: false };
  worker.resume();
  await new Promise((resolve) => setTimeout(resolve, params.delayMs));
  worker.kill();
  const record = await worker.result();
  const landed = killLanding(record.signal, await run.traceOf('first'), {
    begin: params.after!.point,
    end: params.windowEnd!,
  });
  // Killed while the rows were being written: readers must still see the old rows or the whole load.
  const atomic = await atomicVisibility(
    run.fixture.inspector,
    images,
    `after the kill ${params.delayMs} ms past ${params.after!.point} (${landed})`,
  );
  return {
    attempts: [record],
    hit: true,
    fault: { landed, landed_after: record.last_point },
    extraChecks: [atomic],
  };
}

async function runCrash(run: CellRun): Promise<CellOutcome> {
  const params = run.cell.params as CrashParams;
  const { inspector } = run.fixture;
  // Before any worker: the two states a kill may leave (the old rows or the whole load).
  const images = await targetImages(inspector);
  if (params.after !== undefined) return runMutationKill(run, params, images);
  if (params.delayMs !== undefined) {
    await using worker = run.start('first');
    await new Promise((resolve) => setTimeout(resolve, params.delayMs));
    worker.kill();
    const record = await worker.result();
    const atomic = await atomicVisibility(inspector, images, `after the kill at ${params.delayMs} ms`);
    return { attempts: [record], hit: true, extraChecks: [atomic] };
  }
  // A real (non-variant) cell starts from the recorded kill's state when the route can copy it:
  // its first attempt then ran, and was SIGKILLed at the same point, once during trace recording.
  const recorded = run.cell.variant === null && params.killed !== undefined;
  const first =
    recorded && (await run.restore(params.killed!.dir))
      ? { record: { ...params.killed!.first, role: 'first-recorded' }, hit: true }
      : await run.killAt('first', params.first!);
  const checks = first.hit
    ? [await atomicVisibility(inspector, images, `after the kill at ${occurrenceKey(params.first!)}`)]
    : [];
  if (!first.hit || !params.recovery)
    return { attempts: [first.record], hit: first.hit, extraChecks: checks };
  await run.expireLeases();
  const recovery = await run.killAt('recovery', params.recovery);
  if (recovery.hit)
    checks.push(
      await atomicVisibility(
        inspector,
        images,
        `after the kill in the recovery at ${occurrenceKey(params.recovery)}`,
      ),
    );
  return { attempts: [first.record, recovery.record], hit: recovery.hit, extraChecks: checks };
}

/**
 * crash: SIGKILL at every occurrence of every fault point of the clean run (depth 1), then, after
 * each of those, at every occurrence of the recovery run's points (depth 2), plus seeded random
 * kill times. The runner's settle worker is the final recovery of every cell. After each kill the
 * target must hold its rows from before or the whole load (`atomic-visibility`, atomic-visibility.ts).
 */
export const crashFault: FaultModule<'crash'> = {
  kind: 'crash',
  leaseTtlMs: () => TAKEOVER_LEASE_TTL_MS,
  plan: planCrash,
  run: runCrash,
};
