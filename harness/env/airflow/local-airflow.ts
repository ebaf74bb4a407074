import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { openSync, closeSync } from 'node:fs';
import { chmod, copyFile, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DponeError, ERROR_CODES } from '../../../src/contracts/errors.ts';
import { freeLoopbackPort } from '../free-port.ts';
import { AirflowApi } from './airflow-api.ts';
import type { AirflowMetadata } from './airflow-metadata.ts';
import { startMetadata } from './airflow-metadata.ts';
import { killProcessesWithEnv } from './process-tree.ts';
import type { AirflowVenv } from './airflow-venv.ts';

const BIN = fileURLToPath(new URL('../../../bin/dpone.js', import.meta.url));
const PRODUCTION_DAG = fileURLToPath(new URL('../../../examples/airflow/dpone_dag.py', import.meta.url));
const LIVE_DAG = fileURLToPath(new URL('./dags/dpone_live.py', import.meta.url));
const COMPILE_CACHE = fileURLToPath(new URL('../../../node_modules/.cache/dpone-workers', import.meta.url));
const COMPONENTS = ['api-server', 'scheduler', 'dag-processor'] as const;
const START_TIMEOUT_MS = 240_000;
const STOP_TIMEOUT_MS = 15_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Airflow's configuration for a local scheduler that retries within seconds (env overrides). */
function airflowConfig(home: string, port: number): Record<string, string> {
  return {
    AIRFLOW_HOME: home,
    AIRFLOW__CORE__DAGS_FOLDER: join(home, 'dags'),
    AIRFLOW__CORE__LOAD_EXAMPLES: 'False',
    AIRFLOW__CORE__EXECUTOR: 'LocalExecutor',
    AIRFLOW__CORE__PARALLELISM: '8',
    AIRFLOW__CORE__DAGS_ARE_PAUSED_AT_CREATION: 'False',
    AIRFLOW__API__HOST: '127.0.0.1',
    AIRFLOW__API__PORT: String(port),
    AIRFLOW__CORE__EXECUTION_API_SERVER_URL: `http://127.0.0.1:${port}/execution/`,
    // Signs the task tokens the scheduler hands out and the API server checks: random per run.
    AIRFLOW__API_AUTH__JWT_SECRET: randomBytes(24).toString('hex'),
    AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_ALL_ADMINS: 'True',
    AIRFLOW__SCHEDULER__SCHEDULER_HEARTBEAT_SEC: '1',
    // New cell DAG files are found within a second or two and parsed once.
    AIRFLOW__DAG_PROCESSOR__REFRESH_INTERVAL: '1',
    AIRFLOW__DAG_PROCESSOR__MIN_FILE_PROCESS_INTERVAL: '3600',
    // A lost worker is noticed after 20 s without a heartbeat (default 300 s).
    AIRFLOW__SCHEDULER__TASK_INSTANCE_HEARTBEAT_TIMEOUT: '20',
    AIRFLOW__SCHEDULER__TASK_INSTANCE_HEARTBEAT_TIMEOUT_DETECTION_INTERVAL: '2',
  };
}

/**
 * A real Airflow 3 on this machine: API server (REST and task execution API), scheduler with
 * the LocalExecutor, and DAG processor, in a scratch AIRFLOW_HOME, on a throw-away metadata
 * database (airflow-metadata.ts). `dpone` on the tasks' PATH is this checkout's CLI. Disposing it stops every
 * process it started, including task processes the harness orphaned on purpose.
 */
export class LocalAirflow implements AsyncDisposable {
  readonly home: string;
  readonly api: AirflowApi;
  readonly venv: AirflowVenv;
  readonly metadata: AirflowMetadata;
  readonly #children: ChildProcess[];

  private constructor(
    home: string,
    port: number,
    venv: AirflowVenv,
    metadata: AirflowMetadata,
    children: ChildProcess[],
  ) {
    this.home = home;
    this.api = new AirflowApi(`http://127.0.0.1:${port}`);
    this.venv = venv;
    this.metadata = metadata;
    this.#children = children;
  }

  get dagsFolder(): string {
    return join(this.home, 'dags');
  }

  static async start(venv: AirflowVenv, workDir: string, env: NodeJS.ProcessEnv): Promise<LocalAirflow> {
    const home = join(workDir, 'airflow-home');
    await rm(home, { recursive: true, force: true });
    for (const dir of ['dags', 'logs', 'bin', 'cell-env']) await mkdir(join(home, dir), { recursive: true });
    await chmod(join(home, 'cell-env'), 0o700);
    await copyFile(PRODUCTION_DAG, join(home, 'dags', 'dpone_dag.py'));
    await copyFile(LIVE_DAG, join(home, 'dags', 'dpone_live.py'));
    // Both are modules the cell DAGs import, not DAG files of their own.
    await writeFile(join(home, 'dags', '.airflowignore'), 'dpone_dag\\.py\ndpone_live\\.py\n');
    const shim = join(home, 'bin', 'dpone');
    await writeFile(shim, `#!/bin/sh\nexec "${process.execPath}" --no-warnings "${BIN}" "$@"\n`);
    await chmod(shim, 0o755);
    const port = await freeLoopbackPort();
    const baseEnv = {
      PATH: `${join(home, 'bin')}:${env.PATH ?? '/usr/bin:/bin'}`,
      HOME: env.HOME ?? '/root',
      LANG: 'C.UTF-8',
      NODE_COMPILE_CACHE: COMPILE_CACHE,
      ...airflowConfig(home, port),
    };
    const metadata = await startMetadata(venv, home, env, baseEnv);
    const childEnv = { ...baseEnv, ...metadata.env };
    const children = COMPONENTS.map((component) => {
      const log = openSync(join(home, 'logs', `${component}.log`), 'a');
      try {
        return spawn(venv.airflow, [component], {
          env: childEnv,
          cwd: home,
          detached: true,
          stdio: ['ignore', log, log],
        });
      } finally {
        closeSync(log);
      }
    });
    const airflow = new LocalAirflow(home, port, venv, metadata, children);
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (Date.now() < deadline) {
      if (children.some((child) => child.exitCode !== null || child.signalCode !== null)) break;
      if (await airflow.api.healthy().catch(() => false)) return airflow;
      await sleep(500);
    }
    await airflow[Symbol.asyncDispose]();
    throw new DponeError(
      ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
      `the local Airflow did not become healthy within ${START_TIMEOUT_MS / 1000} s`,
    );
  }

  /** Writes a worker environment (may hold passwords) where only the task reads it, mode 0600. */
  async writeCellEnv(key: string, values: Readonly<Record<string, string>>): Promise<string> {
    const file = join(this.home, 'cell-env', `${key}.json`);
    await writeFile(file, JSON.stringify(values), { mode: 0o600 });
    return file;
  }

  /** Adds a DAG file to the DAG folder (the DAG processor picks it up within seconds). */
  async writeDag(name: string, source: string): Promise<string> {
    const file = join(this.dagsFolder, name);
    await writeFile(`${file}.tmp`, source);
    await rename(`${file}.tmp`, file);
    return file;
  }

  async removeDag(name: string): Promise<void> {
    await rm(join(this.dagsFolder, name), { force: true });
  }

  async [Symbol.asyncDispose](): Promise<void> {
    const alive = this.#children.filter((child) => child.exitCode === null && child.signalCode === null);
    const exited = alive.map((child) => new Promise((resolve) => child.once('exit', resolve)));
    for (const child of alive) signalGroup(child, 'SIGTERM');
    const timer = setTimeout(() => alive.forEach((child) => signalGroup(child, 'SIGKILL')), STOP_TIMEOUT_MS);
    await Promise.all(exited);
    clearTimeout(timer);
    // Task runners and dpone processes run in sessions of their own; all carry this AIRFLOW_HOME.
    await killProcessesWithEnv(`AIRFLOW_HOME=${this.home}`);
    await this.metadata[Symbol.asyncDispose]();
  }
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // the group is gone already
  }
}
