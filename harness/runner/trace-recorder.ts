import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { StartedEnvironment } from '../env/environment.ts';
import { TAKEOVER_LEASE_TTL_MS } from '../faults/fault.ts';
import { endsClean } from '../faults/reference-fault.ts';
import type { RecordedKill, TraceBook, TraceOccurrence } from '../plan/trace.ts';
import { namedPoints, occurrenceKey, readTrace } from '../plan/trace.ts';
import type { MutationWindow } from '../plan/mutation-window.ts';
import { mutationWindow, readTimings } from '../plan/mutation-window.ts';
import type { CellWorkloadOptions, Route } from '../routes/route.ts';
import { killAt, runToEnd } from '../workers/worker.ts';
import { CellClock } from './cell-clock.ts';
import { mapBounded } from './pool.ts';

export interface TraceRecording {
  readonly route: Route;
  readonly environment: StartedEnvironment;
  /** Scratch folder; one sub-folder per recording run. */
  readonly dir: string;
  readonly workload: Omit<CellWorkloadOptions, 'leaseTtlMs'>;
  /** Also record the recovery run after a kill at each clean occurrence (depth 2). */
  readonly recovery: boolean;
  readonly concurrency: number;
}

async function fresh(recording: TraceRecording, name: string) {
  const dir = join(recording.dir, name);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const workload = { ...recording.workload, leaseTtlMs: TAKEOVER_LEASE_TTL_MS };
  const fixture = await recording.route.prepareCell(dir, workload, recording.environment);
  const clock = new CellClock();
  const spec = (role: string) => ({
    role,
    workloadFile: fixture.workloadFile,
    journalUrl: fixture.journalUrl,
    cwd: dir,
    env: { ...fixture.env, ...clock.env() },
    traceFile: join(dir, `trace-${role}.txt`),
  });
  return { dir, fixture, spec, clock };
}

/** Fingerprints a throw-away copy, so the kept state stays byte for byte as the kill left it. */
async function fingerprintCopy(route: Route, snapshot: string): Promise<string | undefined> {
  if (!route.durableFingerprint || !route.copyCellState) return undefined;
  const copy = `${snapshot}-fingerprint`;
  await mkdir(copy, { recursive: true });
  try {
    await route.copyCellState(snapshot, copy);
    return await route.durableFingerprint(copy);
  } finally {
    await rm(copy, { recursive: true, force: true });
  }
}

/** The recovery run that follows a SIGKILL at `at` in the first attempt. */
async function recoveryTrace(
  recording: TraceRecording,
  at: TraceOccurrence,
  index: number,
): Promise<{ trace: TraceOccurrence[]; kill: RecordedKill | null }> {
  const { dir, fixture, spec, clock } = await fresh(recording, `recovery-${index}`);
  try {
    const first = await killAt({ ...spec('first'), stop: at });
    if (!first.hit) return { trace: [], kill: null };
    let kill: RecordedKill | null = null;
    if (recording.route.copyCellState) {
      const snapshot = join(recording.dir, `killed-${index}`);
      await rm(snapshot, { recursive: true, force: true });
      await mkdir(snapshot, { recursive: true });
      await recording.route.copyCellState(dir, snapshot);
      const fingerprint = await fingerprintCopy(recording.route, snapshot);
      kill = { dir: snapshot, first: first.record, ...(fingerprint ? { fingerprint } : {}) };
    } else if (fixture.fingerprint) {
      // State on a server cannot be copied, but it can be read: equal states still share one
      // set of depth-2 cells (each of which kills a first attempt again; no folder to start from).
      kill = { dir: '', first: first.record, fingerprint: await fixture.fingerprint() };
    }
    await clock.passLeases(fixture);
    await runToEnd(spec('recovery'));
    return { trace: await readTrace(spec('recovery').traceFile), kill };
  } finally {
    await fixture[Symbol.asyncDispose]();
  }
}

/**
 * Records the traces a plan is enumerated from, on fresh fixtures with real workers: one clean run
 * (its ordered fault points) and, for depth 2, the recovery run after a kill at each of them. A
 * clean run that does not end as one must is not a harness error: the book says how it ended
 * (`referenceFailure`) and the planner turns its scenarios into failing reference cells.
 */
export async function recordTraces(recording: TraceRecording): Promise<TraceBook> {
  const { fixture, spec } = await fresh(recording, 'clean');
  const started = Date.now();
  let clean: TraceOccurrence[];
  let statements: TraceOccurrence[];
  let window: MutationWindow | null;
  const timingsFile = join(recording.dir, 'clean', 'timings-clean.txt');
  try {
    // The reference run also records its statement points: statement cells are planned from them.
    const record = await runToEnd({ ...spec('clean'), timingsFile, statements: true });
    if (!endsClean(record, recording.workload.fence)) {
      // The system under test failed its own clean run: nothing can be planned from it, and its
      // scenarios become reference cells that FAIL with what the run did and the target shows.
      const referenceFailure = {
        exit_code: record.exit_code,
        signal: record.signal,
        error_code: record.error_code ?? null,
        last_point: record.last_point,
      };
      return { clean: [], recovery: new Map(), cleanDurationMs: Date.now() - started, referenceFailure };
    }
    statements = await readTrace(spec('clean').traceFile);
    clean = namedPoints(statements);
    window = mutationWindow(await readTimings(timingsFile));
  } finally {
    await fixture[Symbol.asyncDispose]();
  }
  const cleanDurationMs = Date.now() - started;
  const recovery = new Map<string, readonly TraceOccurrence[]>();
  const snapshots = new Map<string, RecordedKill>();
  if (recording.recovery) {
    const results = await mapBounded(clean, recording.concurrency, (at, index) =>
      recoveryTrace(recording, at, index),
    );
    clean.forEach((at, index) => {
      const { trace, kill } = results[index]!;
      recovery.set(occurrenceKey(at), trace);
      if (kill) snapshots.set(occurrenceKey(at), kill);
    });
  }
  return {
    clean,
    ...(statements.length > clean.length ? { statements } : {}),
    recovery,
    cleanDurationMs,
    snapshots,
    ...(window ? { mutationWindow: window } : {}),
  };
}
