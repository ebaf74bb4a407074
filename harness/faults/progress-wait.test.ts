import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/contracts/errors.ts';
import { untilProgress } from './progress-wait.ts';

/** A fake clock the probes advance: the wait's bounds are decided on it, not on the machine's. */
function clock() {
  let at = 0;
  return { now: () => at, advance: (ms: number) => (at += ms) };
}

describe('a wait bounded by progress', () => {
  it('outlasts its idle bound while progress moves, and answers when the probe does', async () => {
    const time = clock();
    let polls = 0;
    const value = await untilProgress(
      'the task to end',
      { idleMs: 1_000, capMs: 60_000, pollMs: 0 },
      async () => (++polls === 20 ? 'done' : null),
      async () => `heartbeat ${time.advance(500)}`,
      time.now,
    );
    // 20 polls of 500 ms each (10 s) with an idle bound of 1 s: the heartbeat kept it going.
    expect(value).toBe('done');
    expect(time.now()).toBeGreaterThan(5_000);
  });

  it('fails after the idle bound without progress, naming what it waited for and what it last saw', async () => {
    const time = clock();
    const waited = untilProgress(
      'run r1 to end',
      { idleMs: 1_000, capMs: 60_000, pollMs: 0 },
      async () => (time.advance(400), null),
      async () => 'task running try 2',
      time.now,
    );
    await expect(waited).rejects.toMatchObject({
      code: ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
      message: expect.stringMatching(
        /^Airflow: no progress for \d+ s waiting for run r1 to end \(\d+ s in all; last seen: task running try 2\)$/,
      ),
    });
  });

  it('fails at the cap even while something keeps moving', async () => {
    const time = clock();
    const waited = untilProgress(
      'a try to park',
      { idleMs: 1_000, capMs: 5_000, pollMs: 0 },
      async () => null,
      async () => `heartbeat ${time.advance(500)}`,
      time.now,
    );
    await expect(waited).rejects.toThrow(/still moving after the 5 s cap waiting for a try to park/);
  });
});
