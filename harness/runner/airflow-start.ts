import type { AirflowStart } from '../env/airflow/airflow-environment.ts';
import type { LocalAirflow } from '../env/airflow/local-airflow.ts';

/**
 * A run's Airflow, started in the background: its start (a metadata database, four Python
 * processes, about a minute) does not hold back the cells that need no Airflow; only those that
 * do wait for it (`ready`). Disposing waits for a start still under way, then stops what started.
 */
export class BackgroundAirflow implements AsyncDisposable {
  readonly #starting: Promise<AirflowStart | null>;

  /** `start` runs only when `needed`; otherwise the run has no Airflow (`ready()` gives null). */
  constructor(needed: boolean, start: () => Promise<AirflowStart>) {
    this.#starting = needed ? start() : Promise.resolve(null);
    // Awaited by the cells that need it and at the end; a failure is theirs to report, not unhandled.
    this.#starting.catch(() => undefined);
  }

  /** How the start ended (null: not needed). Rejects only when the start itself threw. */
  ready(): Promise<AirflowStart | null> {
    return this.#starting;
  }

  /** The started Airflow, or null (not needed, unavailable, or its start threw). */
  async started(): Promise<LocalAirflow | null> {
    const start = await this.#starting.catch(() => null);
    return start?.status === 'started' ? start.airflow : null;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await (await this.started())?.[Symbol.asyncDispose]();
  }
}
