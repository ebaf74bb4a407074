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
    const snapshot = join(recording.dir, `killed-${index}`);
    // A kill whose folder holds none of the target's state (copyCellState false) is not recorded
    // as a folder to start from: its depth-2 and loss cells kill a first attempt again.
    let copied = false;
    if (recording.route.copyCellState) {
      await rm(snapshot, { recursive: true, force: true });
      await mkdir(snapshot, { recursive: true });
      copied = await recording.route.copyCellState(dir, snapshot);
    }
    if (copied) {
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

/** A clean run's outcome: the book without its recovery runs, or a finished book (a failed reference). */
type CleanRecording =
  | { readonly done: TraceBook }
  | {
      readonly clean: TraceOccurrence[];
      readonly statements: TraceOccurrence[];
      readonly window: MutationWindow | null;
      readonly cleanDurationMs: number;
    };

/** The clean (reference) run of one recording, on a fresh fixture. */
async function recordClean(recording: TraceRecording): Promise<CleanRecording> {
  const { fixture, spec } = await fresh(recording, 'clean');
  const started = Date.now();
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
      return {
        done: { clean: [], recovery: new Map(), cleanDurationMs: Date.now() - started, referenceFailure },
      };
    }
    const statements = await readTrace(spec('clean').traceFile);
    const clean = namedPoints(statements);
    const window = mutationWindow(await readTimings(timingsFile));
    return { clean, statements, window, cleanDurationMs: Date.now() - started };
  } finally {
    await fixture[Symbol.asyncDispose]();
  }
}

/**
 * Records the traces a plan is enumerated from, on fresh fixtures with real workers: per recording
 * one clean run (its ordered fault points) and, for depth 2, the recovery run after a kill at each
 * of them. A clean run that does not end as one must is not a harness error: the book says how it
 * ended (`referenceFailure`) and the planner turns its scenarios into failing reference cells.
 * All recordings share one pool of `concurrency` workers: the clean runs of every recording first,
 * then every recovery run, so the CPUs are not left idle while one recording's clean run goes alone.
 * Each recording keeps its own folder and fixtures, so the books are the ones recorded one by one.
 */
export async function recordTraceBooks(
  recordings: readonly TraceRecording[],
  concurrency: number,
): Promise<TraceBook[]> {
  const cleans = await mapBounded(recordings, concurrency, (recording) => recordClean(recording));
  const kills = recordings.flatMap((recording, r) => {
    const clean = cleans[r]!;
    return 'done' in clean || !recording.recovery
      ? []
      : clean.clean.map((at, index) => ({ recording, at, index }));
  });
  const results = await mapBounded(kills, concurrency, ({ recording, at, index }) =>
    recoveryTrace(recording, at, index),
  );
  return recordings.map((recording, r) => {
    const clean = cleans[r]!;
    if ('done' in clean) return clean.done;
    const recovery = new Map<string, readonly TraceOccurrence[]>();
    const snapshots = new Map<string, RecordedKill>();
    kills.forEach((kill, k) => {
      if (kill.recording !== recording) return;
      const { trace, kill: recorded } = results[k]!;
      recovery.set(occurrenceKey(kill.at), trace);
      if (recorded) snapshots.set(occurrenceKey(kill.at), recorded);
    });
    return {
      clean: clean.clean,
      ...(clean.statements.length > clean.clean.length ? { statements: clean.statements } : {}),
      recovery,
      cleanDurationMs: clean.cleanDurationMs,
      snapshots,
      ...(clean.window ? { mutationWindow: clean.window } : {}),
    };
  });
}
