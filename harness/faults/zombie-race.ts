import { statSync } from 'node:fs';
import type { AttemptRecord, CheckRecord } from '../evidence/evidence-types.ts';
import type { TraceOccurrence } from '../plan/trace.ts';
import type { Worker } from '../workers/worker.ts';
import type { CellOutcome, CellRun, WorkerOptions } from './fault.ts';

/**
 * The second worker runs while the first is parked, until it ends or its trace stops growing for
 * this long: then it waits on a lock the parked first holds (the embedded file's write lock, a
 * server's row lock inside the first's target transaction), and the first is released. Progress, not a fixed
 * bound, so a slow machine never releases the first while the second is still on its way.
 */
const STALL_MS = 3_000;
/** The second worker's start-up before its first fault point. */
const START_LIMIT_MS = 20_000;
const POLL_MS = 100;

function traceSize(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** Resolves when the worker ended ('finished') or stopped making progress ('stalled'). */
export async function finishedOrStalled(worker: Worker): Promise<'finished' | 'stalled'> {
  const ended = worker.result().then(() => 'finished' as const);
  let size = 0;
  let since = Date.now();
  for (;;) {
    const tick = new Promise<null>((resolve) => setTimeout(() => resolve(null), POLL_MS));
    if ((await Promise.race([ended, tick])) === 'finished') return 'finished';
    const now = traceSize(worker.spec.traceFile);
    if (now !== size) {
      size = now;
      since = Date.now();
    } else if (Date.now() - since >= (size === 0 ? START_LIMIT_MS : STALL_MS)) return 'stalled';
  }
}

/**
 * Lets `other` run while `holder` is parked until it ends or stalls (on a lock the holder holds),
 * then releases the holder: both attempts (the holder's first) and whether `other` ended first.
 */
export async function releasedAfter(
  holder: Worker,
  other: Worker,
): Promise<{ attempts: AttemptRecord[]; otherFirst: boolean }> {
  const otherFirst = (await finishedOrStalled(other)) === 'finished';
  holder.resume();
  return { attempts: [await holder.result(), await other.result()], otherFirst };
}

/**
 * The first worker parks at `at` (alive: a zombie, not a corpse); the loss strikes; a second
 * worker runs on what is left until it ends or stalls on the first's lock; then the first is
 * released and runs on with what it still holds.
 */
export async function zombieRace(
  run: CellRun,
  at: TraceOccurrence,
  lose: () => Promise<{ checks: CheckRecord[]; second: WorkerOptions }>,
): Promise<Omit<CellOutcome, 'observe'>> {
  await using first = run.start('first', { stop: at });
  if (!(await first.parked())) return { attempts: [await first.result()], hit: false };
  const { checks, second: options } = await lose();
  await using second = run.start(options.journal ? 'fork' : 'second', options);
  const { attempts, otherFirst: secondFirst } = await releasedAfter(first, second);
  const order: CheckRecord = {
    name: 'loss-interleaving',
    verdict: 'PASS',
    detail: secondFirst
      ? 'the second worker finished while the first was parked'
      : 'the second worker stalled on a lock the parked first held; the first was released',
  };
  return { attempts, hit: true, expectation: { end: 'stopped' }, extraChecks: [...checks, order] };
}
