import { describe, expect, it } from 'vitest';
import type { AirflowStart } from '../env/airflow/airflow-environment.ts';
import type { LocalAirflow } from '../env/airflow/local-airflow.ts';
import { BackgroundAirflow } from './airflow-start.ts';

/** A start the test ends by hand, and an Airflow that counts its disposals. */
function pendingStart() {
  let finish!: (start: AirflowStart) => void;
  let fail!: (error: Error) => void;
  const promise = new Promise<AirflowStart>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  const disposed = { count: 0 };
  const airflow = {
    async [Symbol.asyncDispose]() {
      disposed.count++;
    },
  } as unknown as LocalAirflow;
  return { promise, finish, fail, airflow, disposed };
}

describe('BackgroundAirflow', () => {
  it('starts nothing when no cell needs Airflow', async () => {
    let calls = 0;
    await using background = new BackgroundAirflow(false, async () => {
      calls++;
      return { status: 'unavailable', reason: 'x', failure: false };
    });
    expect(await background.ready()).toBeNull();
    expect(await background.started()).toBeNull();
    expect(calls).toBe(0);
  });

  it('returns at once while the start goes on; the cells that need it wait for it', async () => {
    const start = pendingStart();
    const background = new BackgroundAirflow(true, () => start.promise);
    let seen: AirflowStart | null | undefined;
    const waiting = background.ready().then((value) => (seen = value));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(seen).toBeUndefined();
    start.finish({ status: 'started', airflow: start.airflow });
    await waiting;
    expect(seen).toMatchObject({ status: 'started' });
    expect(await background.started()).toBe(start.airflow);
    await background[Symbol.asyncDispose]();
    expect(start.disposed.count).toBe(1);
  });

  it('disposing waits for a start still under way, then stops what started', async () => {
    const start = pendingStart();
    const background = new BackgroundAirflow(true, () => start.promise);
    const disposing = background[Symbol.asyncDispose]();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(start.disposed.count).toBe(0);
    start.finish({ status: 'started', airflow: start.airflow });
    await disposing;
    expect(start.disposed.count).toBe(1);
  });

  it('a start that threw fails the cells that wait for it, never the disposal', async () => {
    const start = pendingStart();
    const background = new BackgroundAirflow(true, () => start.promise);
    start.fail(new Error('venv broken'));
    await expect(background.ready()).rejects.toThrow('venv broken');
    expect(await background.started()).toBeNull();
    await expect(background[Symbol.asyncDispose]()).resolves.toBeUndefined();
  });

  it('an unavailable Airflow is reported as it came, with nothing to stop', async () => {
    await using background = new BackgroundAirflow(true, async () => ({
      status: 'unavailable',
      reason: 'Airflow: no venv',
      failure: true,
    }));
    expect(await background.ready()).toEqual({
      status: 'unavailable',
      reason: 'Airflow: no venv',
      failure: true,
    });
    expect(await background.started()).toBeNull();
  });
});
