import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { parse } from 'yaml';
import { BUILT_IN_CONNECTORS } from '../../src/cli/engine-table.ts';
import type { TaskTryInfo } from '../env/airflow/airflow-api.ts';
import type { LocalAirflow } from '../env/airflow/local-airflow.ts';
import type { ProcessRef } from '../env/airflow/process-tree.ts';
import { isAlive, processRef, signalProcess } from '../env/airflow/process-tree.ts';
import type { AirflowRunRecord, AttemptRecord } from '../evidence/evidence-types.ts';
import {
  readJson,
  runningIn,
  tryAttempts,
  tryExitCode,
  tryFolders,
  tryRecords,
} from './airflow-live-tries.ts';
import type { CellRun } from './fault.ts';
import { untilProgress } from './progress-wait.ts';

/**
 * Waits on Airflow are bounded by progress (harness/faults/progress-wait.ts): they go on while the
 * scheduler's heartbeat or the awaited thing's state moves, fail after this long without any
 * progress, and after CAP_MS in all. A busy machine slows Airflow down; it does not stop its
 * heartbeat, so load no longer turns a wait into an UNKNOWN cell.
 */
const TASK_IDLE_MS = 240_000;
const STEP_IDLE_MS = 120_000;
const CAP_MS = 600_000;
const TERMINAL = new Set(['success', 'failed', 'skipped', 'upstream_failed', 'removed']);

/** Where a try stops so the harness can act on it: a fault point and its hit. */
export interface TryStop {
  readonly point: string;
  readonly hit: number;
}

/** `url` made absolute against `base` by the built-in engine it is a relative file URL of, if any. */
function absoluteUrl(url: string, base: string): string | undefined {
  for (const engine of Object.values(BUILT_IN_CONNECTORS)) {
    const made = engine.workload?.absoluteUrl?.(url, base);
    if (made !== undefined) return made;
  }
  return undefined;
}

/**
 * The cell's workload for the DAG: without its identity (Airflow renders that), with URLs naming a
 * file relative to it (an engine's WorkloadRules.absoluteUrl) and the state folder made absolute
 * (the workload file moves into a try folder).
 */
function workloadForDag(text: string, file: string): Record<string, unknown> {
  type Endpoint = { url?: string };
  const { identity: _identity, ...workload } = parse(text) as Record<string, unknown> & {
    source?: Endpoint;
    target?: Endpoint;
    execution?: { state_dir?: string };
  };
  const base = dirname(file);
  const absolute = (endpoint?: Endpoint) => {
    const url = endpoint?.url;
    const made = url === undefined ? undefined : absoluteUrl(url, base);
    return made === undefined ? endpoint : { ...endpoint, url: made };
  };
  const stateDir = workload.execution?.state_dir;
  return {
    ...workload,
    source: absolute(workload.source),
    target: absolute(workload.target),
    ...(stateDir ? { execution: { ...workload.execution, state_dir: resolve(base, stateDir) } } : {}),
  };
}

/**
 * One airflow-live cell on the run's Airflow: its DAG file (a DAG of its own, scheduled once
 * for the cell's interval), its try folders (`airflow/tries/<n>`, one per `dpone run` Airflow
 * started, the pods' stand-ins), the fault plans of those tries, and what the harness did.
 */
export class AirflowCell implements AsyncDisposable {
  readonly run: CellRun;
  readonly airflow: LocalAirflow;
  readonly dagId: string;
  readonly dir: string;
  taskId = '';
  readonly #dagFile: string;
  readonly #orphans: ProcessRef[] = [];
  readonly #actions = new Map<number, string>();
  readonly #runs: AirflowRunRecord[] = [];

  private constructor(run: CellRun, airflow: LocalAirflow, key: string) {
    this.run = run;
    this.airflow = airflow;
    this.dagId = `dpone_live_${key}`;
    this.dir = join(run.dir, 'airflow');
    this.#dagFile = `dpone_cell_${key}.py`;
  }

  /**
   * Waits until `probe` answers; progress is Airflow's heartbeats plus `state` (what is awaited:
   * a task's state and try, a try folder's files), so only a stalled Airflow times out.
   */
  #until<T>(
    what: string,
    idleMs: number,
    probe: () => Promise<T | null | undefined>,
    state: () => Promise<string> = async () => '',
  ): Promise<T> {
    const progress = async () => `${await this.airflow.api.heartbeats()}; ${await state()}`;
    return untilProgress(what, { idleMs, capMs: CAP_MS }, probe, progress);
  }

  /** The state of the run's task instance, as progress text. */
  async #taskState(runId: string): Promise<string> {
    const ti = await this.airflow.api.taskInstance(this.dagId, runId, this.taskId).catch(() => null);
    return ti ? `task ${ti.state ?? 'none'} try ${ti.try_number}` : 'no task instance';
  }

  /** Writes the cell's workload, worker environment, try plans and DAG; waits for Airflow to parse it. */
  static async open(
    run: CellRun,
    airflow: LocalAirflow,
    plans: ReadonlyMap<number, TryStop>,
    retryDelaySeconds: number,
    env: Readonly<Record<string, string>> = {},
  ): Promise<AirflowCell> {
    const key = createHash('sha256').update(`${run.cell.id}\n${run.dir}`).digest('hex').slice(0, 12);
    const cell = new AirflowCell(run, airflow, key);
    await mkdir(join(cell.dir, 'plans'), { recursive: true });
    const workload = workloadForDag(
      await readFile(run.fixture.workloadFile, 'utf8'),
      run.fixture.workloadFile,
    );
    await writeFile(
      join(cell.dir, 'cell.json'),
      JSON.stringify({ workload, journal: run.fixture.journalUrl }),
    );
    const envFile = await airflow.writeCellEnv(key, {
      ...run.fixture.env,
      ...env,
      DPONE_HARNESS: '1',
      ...(run.cell.variant ? { DPONE_UNSAFE_VARIANT: run.cell.variant } : {}),
    });
    for (const [folder, stop] of plans)
      await writeFile(join(cell.dir, 'plans', `${folder}.json`), JSON.stringify({ stop }));
    const args = [cell.dagId, cell.dir, envFile].map((value) => JSON.stringify(value)).join(', ');
    await airflow.writeDag(
      cell.#dagFile,
      `# A DAG for one dpone airflow-live cell (generated by the harness).\nfrom dpone_live import cell_dag\n\ndag = cell_dag(${args}, retry_delay_seconds=${retryDelaySeconds})\n`,
    );
    await cell.#until(`DAG ${cell.dagId} to be parsed`, STEP_IDLE_MS, async () =>
      (await airflow.api.hasDag(cell.dagId).catch(() => false)) ? true : null,
    );
    cell.taskId = await cell.#until('the DAG task', STEP_IDLE_MS, () =>
      airflow.api.taskIds(cell.dagId).then((ids) => ids[0]),
    );
    return cell;
  }

  /** The run the scheduler created for the cell's interval. */
  scheduledRun(): Promise<string> {
    return this.#until('the scheduled run', STEP_IDLE_MS, async () => {
      const runs = await this.airflow.api.dagRuns(this.dagId);
      return runs.find((run) => run.run_type === 'scheduled')?.dag_run_id;
    });
  }

  /** Resolves when try folder `n`'s dpone parked at its stop (its process), or null if it ended first. */
  async parked(folder: number): Promise<ProcessRef | null> {
    const dir = join(this.dir, 'tries', String(folder));
    const files = async () => {
      const notify = await readFile(join(dir, 'notify'), 'utf8').catch(() => '');
      return `try folder ${folder}: ${notify.split('\n').length - 1} notices`;
    };
    const found = await this.#until(
      `try folder ${folder} to park`,
      STEP_IDLE_MS,
      async () => {
        const line = (await readFile(join(dir, 'notify'), 'utf8').catch(() => ''))
          .split('\n')
          .find((candidate) => candidate.includes('"parked"'));
        if (line) return { ref: await processRef((JSON.parse(line) as { pid: number }).pid) };
        return (await readJson(join(dir, 'result.json'))) ? { ref: null } : null;
      },
      files,
    );
    return found.ref;
  }

  /** A run of `runType` other than `known` (e.g. the one a backfill just created). */
  newRun(runType: string, known: readonly string[]): Promise<string> {
    return this.#until(`a ${runType} run`, STEP_IDLE_MS, async () => {
      const runs = await this.airflow.api.dagRuns(this.dagId);
      return runs.find((run) => run.run_type === runType && !known.includes(run.dag_run_id))?.dag_run_id;
    });
  }

  /**
   * Waits until the run's task instance is terminal (success or failed: no retry pending) at
   * try `minTry` or later (a cleared task starts over from an earlier terminal state).
   */
  taskEnd(runId: string, minTry = 1): Promise<TaskTryInfo> {
    return this.#until(
      `run ${runId} to end`,
      TASK_IDLE_MS,
      async () => {
        const ti = await this.airflow.api.taskInstance(this.dagId, runId, this.taskId);
        if (!ti || !ti.state || !TERMINAL.has(ti.state) || ti.try_number < minTry) return null;
        // The run's own state follows a moment later; runs are deleted or cleared only after it.
        const run = (await this.airflow.api.dagRuns(this.dagId)).find((r) => r.dag_run_id === runId);
        return run && TERMINAL.has(run.state) ? ti : null;
      },
      () => this.#taskState(runId),
    );
  }

  /** Waits until a process the harness released (or orphaned) has exited. */
  async processEnd(ref: ProcessRef): Promise<void> {
    await this.#until(`process ${ref.pid} to exit`, STEP_IDLE_MS, async () =>
      (await isAlive(ref)) ? null : true,
    );
  }

  /** Notes what the harness did to the try in `folder` (shown with that try in the evidence). */
  note(folder: number, action: string): void {
    this.#actions.set(folder, action);
  }

  /** A process left running on purpose: killed at the latest when the cell ends. */
  orphan(ref: ProcessRef): void {
    this.#orphans.push(ref);
  }

  /** Waits until the run's task is terminal at try `minTry` or later (`taskEnd`), then records the run (`recordRun`). */
  async recordEnd(
    runId: string,
    expected: AirflowRunRecord['expected'],
    minTry = 1,
  ): Promise<AirflowRunRecord> {
    await this.taskEnd(runId, minTry);
    return this.recordRun(runId, expected);
  }

  /** Reads a run's tries from Airflow (before the run is deleted, or at the end) with what it must show. */
  async recordRun(runId: string, expected: AirflowRunRecord['expected']): Promise<AirflowRunRecord> {
    const api = this.airflow.api;
    const info = (await api.dagRuns(this.dagId)).find((run) => run.dag_run_id === runId);
    const ti = await api.taskInstance(this.dagId, runId, this.taskId);
    const tries = await api.tries(this.dagId, runId, this.taskId);
    const recorded: AirflowRunRecord = {
      run_id: runId,
      run_type: info?.run_type ?? 'unknown',
      data_interval:
        info?.data_interval_start && info.data_interval_end
          ? `${info.data_interval_start}/${info.data_interval_end}`
          : null,
      task_state: ti?.state ?? null,
      max_tries: ti?.max_tries ?? 0,
      tries: await tryRecords(await tryFolders(this.dir), runId, tries, this.#actions),
      expected,
    };
    this.#runs.push(recorded);
    return recorded;
  }

  get runs(): readonly AirflowRunRecord[] {
    return this.#runs;
  }

  /** One attempt record per `dpone run` Airflow started (try folder), in order. */
  async attempts(): Promise<AttemptRecord[]> {
    return tryAttempts(await tryFolders(this.dir), this.#actions);
  }

  /** The exit code `dpone` reported in try folder `n` (null: it has not ended, or was orphaned). */
  exitCode(folder: number): Promise<number | null> {
    return tryExitCode(join(this.dir, 'tries', String(folder)));
  }

  async [Symbol.asyncDispose](): Promise<void> {
    for (const ref of this.#orphans) {
      await signalProcess(ref, 'SIGKILL');
      await signalProcess(ref, 'SIGCONT');
    }
    // A try still parked when the cell gave up.
    for (const folder of await tryFolders(this.dir)) {
      const ref = await runningIn(folder);
      if (ref) await signalProcess(ref, 'SIGKILL');
    }
    await this.airflow.removeDag(this.#dagFile);
  }
}
