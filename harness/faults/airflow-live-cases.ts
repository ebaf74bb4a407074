import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ProcessRef } from '../env/airflow/process-tree.ts';
import { commandLine, parentOf, signalProcess } from '../env/airflow/process-tree.ts';
import type { AttemptRecord, CheckRecord } from '../evidence/evidence-types.ts';
import type { AirflowCell, TryStop } from './airflow-live-cell.ts';
import { recordLostFenceAnswer } from './recovery-fault.ts';
import { DponeError, ERROR_CODES } from '../../src/contracts/errors.ts';

/**
 * The airflow-live cases that lose something: the pod, the XCom, the task runner, the worker, the
 * fence's answer. (Cases that run a task or interval again: airflow-live-reruns.ts.)
 */

/** What one airflow-live case does; `plans` are keyed by try folder (1 = the first dpone run). */
export interface LiveCase {
  readonly plans: ReadonlyMap<number, TryStop>;
  drive(cell: AirflowCell): Promise<CaseResult>;
}

export interface CaseResult {
  /** The planned fault fired (a try parked where planned and the harness acted on it). */
  readonly hit: boolean;
  readonly attempts?: readonly AttemptRecord[];
  readonly checks?: readonly CheckRecord[];
}

const FIRST_POINT: TryStop = { point: 'journal.read:before', hit: 1 };

const stops = (entries: [number, TryStop][]) => new Map(entries);

/** SIGKILLs a parked process's Airflow ancestor `levels` up (1: task runner, 2: executor worker). */
async function killAncestors(ref: ProcessRef, levels: 1 | 2): Promise<void> {
  const runner = await parentOf(ref);
  const worker = levels === 2 && runner ? await parentOf(runner) : null;
  for (const target of levels === 2 ? [worker, runner] : [runner]) {
    if (!target || !(await commandLine(target)).includes('airflow'))
      throw new DponeError(
        ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
        'the parked dpone process has no Airflow task runner/worker above it',
      );
    await signalProcess(target, 'SIGKILL');
  }
}

/** Tries 1..n lost as planned (`null`: not stopped); the run must succeed after kills + 1 tries. */
export function podLost(losses: readonly (TryStop | null)[]): LiveCase {
  const plans = stops(
    losses.flatMap((stop, index) => (stop ? [[index + 1, stop] as [number, TryStop]] : [])),
  );
  return {
    plans,
    async drive(cell) {
      const runId = await cell.scheduledRun();
      let killed = 0;
      for (const [folder, stop] of plans) {
        const ref = await cell.parked(folder);
        // This try took another path and ended before the point: if it succeeded the run is over.
        if (!ref && (await cell.exitCode(folder)) === 0) break;
        if (!ref) continue;
        await signalProcess(ref, 'SIGKILL');
        cell.note(folder, `pod-killed@${stop.point}#${stop.hit}`);
        killed++;
      }
      await cell.recordEnd(runId, { task_state: 'success', tries: killed + 1 });
      return { hit: killed > 0 };
    },
  };
}

/**
 * XCom lost after a successful `dpone run`: `missing` (no file: KubernetesPodOperator's sidecar
 * returns an empty XCom, the task succeeds) or `unreadable` (retrieval fails: Airflow retries).
 */
export function xcomLost(mode: 'missing' | 'unreadable'): LiveCase {
  return {
    plans: stops([[1, FIRST_POINT]]),
    async drive(cell) {
      const runId = await cell.scheduledRun();
      const ref = await cell.parked(1);
      if (!ref) return { hit: false };
      const xcom = join(cell.dir, 'tries', '1', 'xcom');
      if (mode === 'missing') {
        await rm(xcom, { recursive: true, force: true });
        await writeFile(xcom, ''); // a file where the folder should be: nothing can be written
      } else await mkdir(join(xcom, 'return.json'), { recursive: true });
      cell.note(1, `xcom-${mode}`);
      await signalProcess(ref, 'SIGUSR2');
      await cell.recordEnd(runId, { task_state: 'success', tries: mode === 'missing' ? 1 : 2 });
      return { hit: true };
    },
  };
}

/**
 * The Airflow task runner (the process above `dpone`) SIGKILLed right after the target commit;
 * the orphaned `dpone` is released and finishes on its own; Airflow retries the failed try.
 */
export function runnerLost(): LiveCase {
  const stop: TryStop = { point: 'target.commit:after', hit: 1 };
  return ancestorsLost(stop, 1, `runner-killed@${stop.point}`, 'before-retry');
}

/**
 * The executor worker and task runner SIGKILLed while `dpone` is inside COMMITTING (a worker
 * machine lost; the pod lives on, parked). Airflow notices the missing heartbeat and retries;
 * the retry takes the operation over and completes it; then the old `dpone` wakes up: a zombie
 * with a stale epoch that must write nothing.
 */
export function workerLost(): LiveCase {
  const stop: TryStop = { point: 'cas:PREPARED->COMMITTING:after', hit: 1 };
  return ancestorsLost(
    stop,
    2,
    `worker-killed@${stop.point}; zombie released after the retry`,
    'after-retry',
  );
}

/**
 * Try 1 parked at `stop` and its Airflow ancestors `levels` up SIGKILLed: the orphaned `dpone` is
 * released before Airflow's retry ends or after it (a zombie), waited for, and the run succeeds on try 2.
 */
function ancestorsLost(
  stop: TryStop,
  levels: 1 | 2,
  note: string,
  release: 'before-retry' | 'after-retry',
): LiveCase {
  return {
    plans: stops([[1, stop]]),
    async drive(cell) {
      const runId = await cell.scheduledRun();
      const ref = await cell.parked(1);
      if (!ref) return { hit: false };
      cell.orphan(ref);
      await killAncestors(ref, levels);
      cell.note(1, note);
      if (release === 'after-retry') await cell.taskEnd(runId);
      await signalProcess(ref, 'SIGUSR2');
      await cell.processEnd(ref);
      if (release === 'before-retry') await cell.taskEnd(runId);
      await cell.recordRun(runId, { task_state: 'success', tries: 2 });
      return { hit: true };
    },
  };
}

/**
 * An unknown outcome: try 1 lost after the mutation; before try 2 reads the journal the fence's
 * answer is recorded lost (COMMIT_UNKNOWN). Try 2 must fail without further retries
 * (AirflowFailException); an operator resolves it with `dpone recovery target-commit apply`,
 * clears the task, and try 3 completes without writing again.
 */
export function unknownOutcome(): LiveCase {
  const stop: TryStop = { point: 'target.mutate:after', hit: 1 };
  return {
    plans: stops([
      [1, stop],
      [2, FIRST_POINT],
    ]),
    async drive(cell) {
      const runId = await cell.scheduledRun();
      const first = await cell.parked(1);
      if (!first) return { hit: false };
      await signalProcess(first, 'SIGKILL');
      cell.note(1, `pod-killed@${stop.point}`);
      const second = await cell.parked(2);
      if (!second) return { hit: false };
      await cell.run.waitForLeaseExpiry();
      await recordLostFenceAnswer(cell.run);
      cell.note(2, 'fence answer recorded lost before this try');
      await signalProcess(second, 'SIGUSR2');
      await cell.recordEnd(runId, { task_state: 'failed', tries: 2 });
      const apply = await operatorResolves(cell, 2);
      await cell.airflow.api.clearTask(cell.dagId, runId, cell.taskId);
      await cell.recordEnd(runId, { task_state: 'success', tries: 3 }, 3);
      return { hit: true, attempts: [apply] };
    },
  };
}

/** `dpone recovery target-commit apply --action resolve-unknown` with the rendered workload of a try. */
async function operatorResolves(cell: AirflowCell, folder: number): Promise<AttemptRecord> {
  const journal = await cell.run.fixture.openJournal();
  const [id] = await journal.list();
  const entry = await journal.get(id!);
  await journal.close();
  const identity = join(cell.run.dir, 'platform-identity');
  await writeFile(identity, 'platform:dpone-harness\n');
  return cell.run.run('operator-resolve-unknown', {
    command: [
      ...['recovery', 'target-commit', 'apply', '--operation-id', entry!.operation_id],
      ...['--journal', cell.run.fixture.journalUrl],
      ...['--route', join(cell.dir, 'tries', String(folder), 'workload.yaml')],
      ...['--action', 'resolve-unknown', '--expected-version', String(entry!.version)],
      ...['--reason', 'airflow-live: unknown outcome', '--identity-file', identity, '--json'],
    ],
  });
}
