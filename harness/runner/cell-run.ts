import { join } from 'node:path';
import type { AttemptRecord } from '../evidence/evidence-types.ts';
import type { CellRun, WorkerOptions } from '../faults/fault.ts';
import type { PlannedCell } from '../plan/cell.ts';
import type { TraceOccurrence } from '../plan/trace.ts';
import { readTrace } from '../plan/trace.ts';
import type { LocalAirflow } from '../env/airflow/local-airflow.ts';
import type { CellFixture, Route } from '../routes/route.ts';
import { Worker } from '../workers/worker.ts';
import type { CellClock } from './cell-clock.ts';

/** The CellRun a fault module drives: every worker on this cell's fixture, trace file per role. */
export function cellRun(
  cell: PlannedCell,
  dir: string,
  fixture: CellFixture,
  route: Route,
  clock: CellClock,
  airflow: LocalAirflow | null = null,
): CellRun {
  const traceFile = (role: string) => join(dir, `trace-${role}.txt`);
  const start = (role: string, options: WorkerOptions = {}): Worker =>
    Worker.start({
      role,
      workloadFile: options.workloadFile ?? fixture.workloadFile,
      journalUrl: options.journal?.url ?? fixture.journalUrl,
      cwd: dir,
      traceFile: traceFile(role),
      env: { ...fixture.env, ...clock.env(), ...options.env },
      variant: cell.variant,
      ...(options.stop ? { stop: options.stop } : {}),
      ...(options.stops ? { stops: options.stops } : {}),
      ...(options.journal ? { journalRef: options.journal.ref } : {}),
      ...(options.extraArgs ? { extraArgs: options.extraArgs } : {}),
      ...(options.command ? { command: options.command } : {}),
      ...(options.stdoutFile ? { stdoutFile: options.stdoutFile } : {}),
      ...(options.stderrFile ? { stderrFile: options.stderrFile } : {}),
    });
  return {
    cell,
    dir,
    fixture,
    start,
    async run(role, options): Promise<AttemptRecord> {
      await using worker = start(role, options);
      return await worker.result();
    },
    async killAt(role, stop: TraceOccurrence, options = {}) {
      await using worker = start(role, { ...options, stop });
      const parked = await worker.parked();
      if (parked) worker.kill();
      return { record: await worker.result(), hit: parked !== null };
    },
    async restore(fromDir) {
      if (!route.copyCellState || fromDir === '') return false;
      return await route.copyCellState(fromDir, dir);
    },
    expireLeases: (openJournal) => clock.passLeases(openJournal ? { openJournal } : fixture),
    waitForLeaseExpiry: () => clock.waitPastLeases(fixture),
    nowMs: () => clock.nowMs(),
    traceOf: (role) => readTrace(traceFile(role)),
    airflow,
  };
}
