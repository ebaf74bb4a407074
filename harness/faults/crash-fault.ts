import type { CellDraft } from '../plan/cell.ts';
import { deriveSeed, randomInt, seededRandom } from '../plan/seeded-random.ts';
import type { TraceOccurrence } from '../plan/trace.ts';
import { occurrenceKey } from '../plan/trace.ts';
import type { CellOutcome, CellRun, FaultModule, PlanContext } from './fault.ts';
import { TAKEOVER_LEASE_TTL_MS } from './fault.ts';
import type { FaultSpecOf } from '../scenario/scenario-schema.ts';

/** Random kill delays, from worker start: wide enough to land in start-up, the run and after it. */
const RANDOM_DELAY_MS = { min: 40, max: 700 } as const;

interface CrashParams {
  readonly first?: TraceOccurrence;
  readonly recovery?: TraceOccurrence;
  readonly delayMs?: number;
}

/**
 * The mutation window: from the CAS into COMMITTING to the CAS that records the target's proof.
 * Kills there are where an unsafe target shows a duplicate, so that window is the sensitivity subset.
 */
function commitWindow(trace: readonly TraceOccurrence[]): { from: number; to: number } {
  const from = trace.findIndex((o) => o.point.startsWith('cas:PREPARED->COMMITTING'));
  const to = trace.findIndex((o) => o.point === 'cas:COMMITTING->TARGET_COMMITTED:after');
  return { from: from < 0 ? 0 : from, to: to < 0 ? trace.length - 1 : to };
}

function planCrash(spec: FaultSpecOf<'crash'>, { seed, traces }: PlanContext): CellDraft[] {
  const depth = spec.depth ?? 2;
  const randomCount = spec.random ?? 4;
  const window = commitWindow(traces.clean);
  const drafts: CellDraft[] = traces.clean.map((first, index) => ({
    localId: `d1/${occurrenceKey(first)}`,
    fault: { kind: 'crash', point: first.point, hit: first.hit, attempt: 1 },
    params: { first } satisfies CrashParams,
    sensitive: index >= window.from && index <= window.to,
  }));
  if (depth >= 2) {
    for (const first of traces.clean) {
      for (const recovery of traces.recovery.get(occurrenceKey(first)) ?? []) {
        drafts.push({
          localId: `d2/${occurrenceKey(first)}>${occurrenceKey(recovery)}`,
          fault: {
            kind: 'crash',
            point: first.point,
            hit: first.hit,
            attempt: 2,
            recovery_point: occurrenceKey(recovery),
          },
          params: { first, recovery } satisfies CrashParams,
          sensitive: false,
        });
      }
    }
  }
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

async function runCrash(run: CellRun): Promise<CellOutcome> {
  const params = run.cell.params as CrashParams;
  if (params.delayMs !== undefined) {
    await using worker = run.start('first');
    await new Promise((resolve) => setTimeout(resolve, params.delayMs));
    worker.kill();
    return { attempts: [await worker.result()], hit: true };
  }
  const first = await run.killAt('first', params.first!);
  if (!first.hit || !params.recovery) return { attempts: [first.record], hit: first.hit };
  await run.waitForLeaseExpiry();
  const recovery = await run.killAt('recovery', params.recovery);
  return { attempts: [first.record, recovery.record], hit: recovery.hit };
}

/**
 * crash: SIGKILL at every occurrence of every fault point of the clean run (depth 1), then, after
 * each of those, at every occurrence of the recovery run's points (depth 2), plus seeded random
 * kill times. The runner's settle worker is the final recovery of every cell.
 */
export const crashFault: FaultModule<'crash'> = {
  kind: 'crash',
  leaseTtlMs: () => TAKEOVER_LEASE_TTL_MS,
  plan: planCrash,
  run: runCrash,
};
