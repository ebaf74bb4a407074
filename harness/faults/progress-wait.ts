import { DponeError, ERROR_CODES } from '../../src/contracts/errors.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How long a wait may go without progress, and how long it may take in all. */
export interface ProgressBound {
  /** Fails after this long with no sign of progress (the `progress` text unchanged). */
  readonly idleMs: number;
  /** Fails after this long in all, progress or not (a loop that makes "progress" forever). */
  readonly capMs: number;
  readonly pollMs?: number;
}

/**
 * Waits until `probe` answers, bounded by progress rather than by a wall-clock budget that load
 * can exhaust: as long as `progress()` keeps changing (a scheduler's heartbeat, a task's state or
 * try number, a file a try wrote), the wait goes on, up to `capMs`. It fails, naming what it
 * waited for, how long, and the last progress it saw, only after `idleMs` without any change.
 */
export async function untilProgress<T>(
  what: string,
  bound: ProgressBound,
  probe: () => Promise<T | null | undefined>,
  progress: () => Promise<string>,
  now: () => number = Date.now,
): Promise<T> {
  const started = now();
  let seen = await progress().catch(() => '');
  let movedAt = started;
  for (;;) {
    const value = await probe();
    if (value !== null && value !== undefined) return value;
    const at = now();
    const current = await progress().catch(() => seen);
    if (current !== seen) {
      seen = current;
      movedAt = at;
    }
    if (at - movedAt >= bound.idleMs || at - started >= bound.capMs) {
      const seconds = (ms: number) => Math.round(ms / 1000);
      const why =
        at - movedAt >= bound.idleMs
          ? `no progress for ${seconds(at - movedAt)} s`
          : `still moving after the ${seconds(bound.capMs)} s cap`;
      throw new DponeError(
        ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
        `Airflow: ${why} waiting for ${what} (${seconds(at - started)} s in all; last seen: ${seen || 'nothing'})`,
      );
    }
    await sleep(bound.pollMs ?? 300);
  }
}
