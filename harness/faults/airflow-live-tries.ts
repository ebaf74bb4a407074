import { readFile, readdir, readlink } from 'node:fs/promises';
import { constants } from 'node:os';
import { join } from 'node:path';
import type { TaskTryInfo } from '../env/airflow/airflow-api.ts';
import type { ProcessRef } from '../env/airflow/process-tree.ts';
import { processRef } from '../env/airflow/process-tree.ts';
import type { AirflowTryRecord, AttemptRecord } from '../evidence/evidence-types.ts';

/**
 * The try folders of an airflow-live cell (`<cell>/airflow/tries/<n>`, one per `dpone run` the
 * live DAG started, see harness/env/airflow/dags/dpone_live.py): what each holds, read back.
 */

/** meta.json: which run and Airflow try the folder served. */
interface TryMeta {
  readonly run_id: string;
  readonly try_number: number;
  readonly run_type: string;
}

/** result.json: how dpone exited (negative: the signal that ended it), written by the task. */
interface TryResult {
  readonly exit_code: number;
  readonly pid: number;
  readonly duration_ms: number;
}

export async function readJson<T>(file: string): Promise<T | null> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as T;
  } catch {
    return null;
  }
}

export interface TryFolder {
  readonly folder: number;
  readonly dir: string;
  readonly meta: TryMeta | null;
}

/** The cell's try folders in order. */
export async function tryFolders(cellAirflowDir: string): Promise<TryFolder[]> {
  const names = await readdir(join(cellAirflowDir, 'tries')).catch(() => [] as string[]);
  const folders = names
    .map(Number)
    .filter(Number.isInteger)
    .sort((a, b) => a - b);
  return Promise.all(
    folders.map(async (folder) => {
      const dir = join(cellAirflowDir, 'tries', String(folder));
      return { folder, dir, meta: await readJson<TryMeta>(join(dir, 'meta.json')) };
    }),
  );
}

export async function tryExitCode(dir: string): Promise<number | null> {
  return (await readJson<TryResult>(join(dir, 'result.json')))?.exit_code ?? null;
}

/** Airflow's tries of one run, each joined with its folder: what dpone did and what the harness did. */
export async function tryRecords(
  folders: readonly TryFolder[],
  runId: string,
  airflowTries: readonly TaskTryInfo[],
  actions: ReadonlyMap<number, string>,
): Promise<AirflowTryRecord[]> {
  const records: AirflowTryRecord[] = [];
  for (const t of airflowTries) {
    const found = folders.find((f) => f.meta?.run_id === runId && f.meta.try_number === t.try_number);
    const xcom = found
      ? await readJson<{ status?: string; code?: string }>(join(found.dir, 'xcom', 'return.json'))
      : null;
    records.push({
      try_number: t.try_number,
      state: t.state,
      ...(found ? { folder: found.folder } : {}),
      dpone_exit: found ? await tryExitCode(found.dir) : null,
      dpone_status: xcom?.status ?? null,
      dpone_code: xcom?.code ?? null,
      harness_action: found ? (actions.get(found.folder) ?? null) : null,
    });
  }
  return records;
}

/** One attempt record per try folder, in order; a folder without a result was orphaned. */
export async function tryAttempts(
  folders: readonly TryFolder[],
  actions: ReadonlyMap<number, string>,
): Promise<AttemptRecord[]> {
  const records: AttemptRecord[] = [];
  for (const { folder, dir, meta } of folders) {
    const result = await readJson<TryResult>(join(dir, 'result.json'));
    const xcom = await readJson<{ code?: string }>(join(dir, 'xcom', 'return.json'));
    const trace = (await readFile(join(dir, 'trace.txt'), 'utf8').catch(() => '')).trimEnd().split('\n');
    const pid = Number((await readFile(join(dir, 'pid'), 'utf8').catch(() => '-1')).trim());
    const code = result?.exit_code ?? null;
    const signal =
      code !== null && code < 0
        ? (Object.entries(constants.signals).find(([, number]) => number === -code)?.[0] ?? null)
        : null;
    const orphaned = result === null && actions.has(folder);
    records.push({
      pid,
      exit_code: code !== null && code >= 0 ? code : null,
      signal,
      duration_ms: result?.duration_ms ?? 0,
      last_point: trace.at(-1) || null,
      role: `airflow-${meta?.run_type ?? 'run'}-try-${meta?.try_number ?? folder}${orphaned ? '-orphan' : ''}`,
      error_code: xcom?.code ?? null,
    });
  }
  return records;
}

/** A try's dpone still running (e.g. parked when the cell gave up): its working folder is the try's. */
export async function runningIn(folder: TryFolder): Promise<ProcessRef | null> {
  const pid = Number((await readFile(join(folder.dir, 'pid'), 'utf8').catch(() => '')).trim());
  const ref = pid > 0 ? await processRef(pid) : null;
  return ref && (await readlink(`/proc/${pid}/cwd`).catch(() => '')) === folder.dir ? ref : null;
}
