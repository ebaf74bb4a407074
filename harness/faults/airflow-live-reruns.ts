import type { LiveCase } from './airflow-live-cases.ts';

/**
 * The airflow-live cases that run a finished task or interval again: a cleared task, the
 * interval re-triggered, and one interval as scheduled, backfill and manual runs (the identity).
 */

/** The interval of every cell's scheduled run (harness/env/airflow/dags/dpone_live.py). */
export const CELL_INTERVAL = { start: '2026-01-01T00:00:00Z', end: '2026-01-02T00:00:00Z' } as const;
/**
 * A manual run of that interval: a logical date inside the DAG's last day (a run needs one for
 * its task to be created) and the interval given explicitly, as the REST API and the UI allow.
 * (Left to infer it, Airflow gives a manual run the interval that ends at its logical date.)
 */
const MANUAL_LOGICAL_DATE = '2026-01-01T12:00:00Z';

/** A successful task cleared (Airflow's "Clear"): it runs again and must not write again. */
export function cleared(): LiveCase {
  return {
    plans: new Map(),
    async drive(cell) {
      const runId = await cell.scheduledRun();
      await cell.recordEnd(runId, { task_state: 'success', tries: 1 });
      await cell.airflow.api.clearTask(cell.dagId, runId, cell.taskId);
      await cell.recordEnd(runId, { task_state: 'success', tries: 2 }, 2);
      return { hit: true };
    },
  };
}

/**
 * The interval run again after it succeeded: a manual run of the same interval (logical date =
 * the interval's end) finds the operation complete; a manual run without a logical date has no
 * interval and fails without a retry, before `dpone` runs.
 */
export function retriggered(): LiveCase {
  return {
    plans: new Map(),
    async drive(cell) {
      const api = cell.airflow.api;
      const scheduled = await cell.scheduledRun();
      await cell.recordEnd(scheduled, { task_state: 'success', tries: 1 });
      const manual = await api.triggerRun(cell.dagId, MANUAL_LOGICAL_DATE, CELL_INTERVAL);
      await cell.recordEnd(manual.dag_run_id, { task_state: 'success', tries: 1 });
      const bare = await api.triggerRun(cell.dagId, null);
      await cell.recordEnd(bare.dag_run_id, { task_state: 'failed', tries: 1 });
      return { hit: true };
    },
  };
}

/**
 * Logical identity: a scheduled, a backfill and a manual run of one interval, each created after
 * the previous one was deleted, so each has another run id (`scheduled__…`, `backfill__…`,
 * `manual__…`). They must be one operation: one mutation, every later run already complete.
 */
export function identity(): LiveCase {
  return {
    plans: new Map(),
    async drive(cell) {
      const api = cell.airflow.api;
      const runs = [await cell.scheduledRun()];
      await cell.recordEnd(runs[0]!, { task_state: 'success', tries: 1 });
      await api.deleteRun(cell.dagId, runs[0]!);
      await api.backfill(cell.dagId, CELL_INTERVAL.start, CELL_INTERVAL.start);
      runs.push(await cell.newRun('backfill', runs));
      await cell.recordEnd(runs[1]!, { task_state: 'success', tries: 1 });
      await api.deleteRun(cell.dagId, runs[1]!);
      runs.push((await api.triggerRun(cell.dagId, MANUAL_LOGICAL_DATE, CELL_INTERVAL)).dag_run_id);
      await cell.recordEnd(runs[2]!, { task_state: 'success', tries: 1 });
      const intervals = new Set(cell.runs.map((run) => run.data_interval));
      const distinct = new Set(runs).size === runs.length && intervals.size === 1;
      const detail = `run ids ${runs.join(', ')}; data interval ${[...intervals].join(' | ')}`;
      return {
        hit: true,
        checks: [{ name: 'same-interval-other-run-ids', verdict: distinct ? 'PASS' : 'UNKNOWN', detail }],
      };
    },
  };
}
