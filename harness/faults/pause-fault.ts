import { parseOccurrence, occurrenceKey } from '../plan/trace.ts';
import type { TraceOccurrence } from '../plan/trace.ts';
import type { FaultModule } from './fault.ts';
import { unverifiedOutcome } from './fault.ts';

/**
 * How long the second worker may run while the first is stopped. SQLite: a worker stopped inside
 * its target transaction holds the write lock, so the second cannot finish until the first
 * continues; after this bound the first is continued while the second is still running.
 */
const SECOND_WORKER_BOUND_MS = 1_500;
const DEFAULT_PAUSE_TTL_MS = 300;

/**
 * pause: SIGSTOP a worker at a point, let its lease expire, (add `late_rows` rows to the source
 * partition, so the zombie's batch and the next holder's differ), run a second worker (to
 * completion when it can), then SIGCONT and release the first and let it run to its end. A zombie
 * must not commit a second time, nor undo the next holder's commit: the fence's epoch stops it.
 */
export const pauseFault: FaultModule<'pause'> = {
  kind: 'pause',
  leaseTtlMs: (spec) => spec.lease_ttl_ms ?? DEFAULT_PAUSE_TTL_MS,
  plan: (spec) =>
    spec.points.map((text) => {
      const at = parseOccurrence(text);
      const late = spec.late_rows ?? 0;
      return {
        localId: `${occurrenceKey(at)}${late > 0 ? `+late${late}` : ''}`,
        fault: { kind: 'pause', point: at.point, hit: at.hit, ...(late > 0 ? { late_rows: late } : {}) },
        params: { at },
        sensitive: true,
      };
    }),
  async run(run, spec) {
    const at = run.cell.params.at as TraceOccurrence;
    const late = spec.late_rows ?? 0;
    if (late > 0 && !run.fixture.addSourceRows)
      return unverifiedOutcome(`route ${run.cell.route} cannot add rows to its source during a cell`);
    await using paused = run.start('paused', { stop: at });
    if (!(await paused.parked())) return { attempts: [await paused.result()], hit: false };
    paused.pause();
    await run.expireLeases();
    if (late > 0) await run.fixture.addSourceRows!(late);
    await using second = run.start('second');
    const bound = new Promise<'bound'>((resolve) =>
      setTimeout(() => resolve('bound'), SECOND_WORKER_BOUND_MS),
    );
    const secondFinishedFirst = (await Promise.race([second.result(), bound])) !== 'bound';
    paused.continue();
    paused.resume();
    const attempts = [await paused.result(), await second.result()];
    return {
      attempts,
      hit: true,
      extraChecks: [
        {
          name: 'pause-interleaving',
          verdict: 'PASS',
          detail: secondFinishedFirst
            ? 'the second worker finished while the first was stopped'
            : 'the stopped worker held the target lock; it was continued while the second still ran',
        },
      ],
    };
  },
};
