import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ResultPromise } from 'execa';
import { execa } from 'execa';
import { DponeError, ERROR_CODES } from '../../src/contracts/errors.ts';
import { CLOCK_OFFSET_ENV, FAULT_PLAN_ENV, RESUME_SIGNAL } from '../../src/test-hooks/index.ts';
import type { FaultPlan } from '../../src/test-hooks/index.ts';
import { isStatementPoint } from '../../src/ports/statement-points.ts';
import type { AttemptRecord } from '../evidence/evidence-types.ts';

const BIN = fileURLToPath(new URL('../../bin/dpone.js', import.meta.url));

export interface WorkerSpec {
  /** Role in the cell: "first", "recovery", "settle", "race-3", "paused", "airflow-try-2", … */
  readonly role: string;
  readonly workloadFile: string;
  readonly journalUrl: string;
  readonly cwd: string;
  /** This attempt's own trace file: its last line is the attempt's last fault point. */
  readonly traceFile: string;
  /** Also time each point passed into this file (FaultPlan.timings): the reference run only. */
  readonly timingsFile?: string;
  /** Park at the `hit`-th pass of `point` and announce it on fd 3. */
  readonly stop?: { readonly point: string; readonly hit: number };
  /** Further parking places (see FaultPlan.stops); `parked(n)` waits for the n-th. */
  readonly stops?: readonly { readonly point: string; readonly hit: number }[];
  /**
   * Also pass statement points (FaultPlan.statements): the reference run records them; a stop at a
   * statement point turns them on by itself.
   */
  readonly statements?: boolean;
  /** Marks the attempt record as run on another journal than the cell's (AttemptRecord.journal). */
  readonly journalRef?: 'fork';
  /** Unsafe target variant (sensitivity runs). */
  readonly variant?: string | null;
  readonly env?: Readonly<Record<string, string>>;
  readonly extraArgs?: readonly string[];
  /** dpone arguments instead of `run --workload … --journal … --json` (e.g. a recovery apply). */
  readonly command?: readonly string[];
  /** Also keep what the process printed on stdout in this file (e.g. a `shadow report --json`). */
  readonly stdoutFile?: string;
  /** Also keep what the process printed on stderr in this file (a storage fault reads the error's message). */
  readonly stderrFile?: string;
}

/** Whether the worker passes statement points: asked for, or one of its stops is one. */
function observesStatements(spec: WorkerSpec): boolean {
  const stops = [...(spec.stop ? [spec.stop] : []), ...(spec.stops ?? [])];
  return spec.statements === true || stops.some((stop) => isStatementPoint(stop.point));
}

/** The fd-3 announcement of a parked worker. */
export interface ParkedEvent {
  readonly point: string;
  readonly hit: number;
  readonly pid: number;
}

/** What `dpone run --json` printed on success: its status and whether it claims its own mutation. */
function reportedOutcome(stdout: string): Pick<AttemptRecord, 'status' | 'mutated'> {
  for (const line of stdout.split('\n').reverse()) {
    if (!line.startsWith('{')) continue;
    try {
      const parsed = JSON.parse(line) as { status?: unknown; mutated?: unknown };
      if (typeof parsed.status !== 'string') continue;
      return {
        status: parsed.status,
        mutated: typeof parsed.mutated === 'boolean' ? parsed.mutated : null,
      };
    } catch {
      // not our JSON line
    }
  }
  return {};
}

function lastLine(file: string): string | null {
  try {
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    return lines.at(-1) || null;
  } catch {
    return null;
  }
}

/** The error code a worker reported (`--json` puts `{"error": {"code": …}}` on stderr). */
function reportedCode(stderr: string): string | null {
  for (const line of stderr.split('\n').reverse()) {
    if (!line.startsWith('{')) continue;
    try {
      const parsed = JSON.parse(line) as { error?: { code?: unknown } };
      if (typeof parsed.error?.code === 'string') return parsed.error.code;
    } catch {
      // not our JSON line
    }
  }
  return null;
}

/** Every worker process still running, so an interrupted run can kill them all. */
const LIVE = new Set<Worker>();
let refusing = false;

/**
 * Kills every live worker (SIGKILL, then SIGCONT: a SIGSTOPped one must not keep holding its
 * database's write lock) and refuses to start new ones until `acceptWorkers`.
 */
export function killAllWorkers(): void {
  refusing = true;
  for (const worker of LIVE) {
    worker.kill();
    worker.continue();
  }
}

export function acceptWorkers(): void {
  refusing = false;
}

/**
 * One worker: a separate OS process running `dpone run` under a fault plan. The harness controls
 * it only from outside (SIGKILL, SIGSTOP, SIGCONT, and SIGUSR2 to release a parked worker), and
 * always gets an AttemptRecord back, whether the worker succeeded, failed or was killed.
 */
export class Worker implements AsyncDisposable {
  readonly spec: WorkerSpec;
  readonly pid: number;
  readonly #process: ResultPromise<{ stdio: ['pipe', 'pipe', 'pipe', 'pipe']; reject: false }>;
  /** One promise per announcement, in order; each resolves null when the worker exits first. */
  readonly #parks: { promise: Promise<ParkedEvent | null>; resolve: (event: ParkedEvent | null) => void }[] =
    [];
  readonly #record: Promise<AttemptRecord>;
  #exited = false;

  private constructor(spec: WorkerSpec) {
    if (refusing)
      throw new DponeError(ERROR_CODES.INTERRUPTED, 'the run was interrupted: no new worker starts');
    this.spec = spec;
    const plan: FaultPlan = {
      trace: spec.traceFile,
      ...(spec.timingsFile ? { timings: spec.timingsFile } : {}),
      ...(spec.stop ? { stop: spec.stop } : {}),
      ...(spec.stops ? { stops: spec.stops } : {}),
      ...(spec.stop || spec.stops ? { notifyFd: 3 } : {}),
      ...(observesStatements(spec) ? { statements: true } : {}),
    };
    const args = spec.command ?? [
      'run',
      '--workload',
      spec.workloadFile,
      '--journal',
      spec.journalUrl,
      '--json',
    ];
    this.#process = execa(process.execPath, ['--no-warnings', BIN, ...args, ...(spec.extraArgs ?? [])], {
      cwd: spec.cwd,
      stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
      reject: false,
      // Node's compile cache: bin/dpone.js enables it for every process, workers included.
      env: {
        ...spec.env,
        // A cell certifies the protocol: a deployment policy named in the operator's shell must
        // not turn its workers into legacy or shadow runs (docs/rollout.md).
        DPONE_DEPLOYMENT_POLICY: '',
        DPONE_HARNESS: '1',
        [FAULT_PLAN_ENV]: JSON.stringify(plan),
        ...(spec.variant ? { DPONE_UNSAFE_VARIANT: spec.variant } : {}),
      },
    });
    this.pid = this.#process.pid ?? -1;
    // On the cell's clock (the offset its workers run with), the clock the journal's at_ms is on.
    const startedAt = Date.now() + Number(spec.env?.[CLOCK_OFFSET_ENV] ?? 0);
    let buffer = '';
    let announced = 0;
    this.#process.stdio[3]?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines.filter((candidate) => candidate.includes('"parked"')))
        this.#park(announced++).resolve(JSON.parse(line) as ParkedEvent);
    });
    void this.#process.then(() => {
      for (const park of this.#parks) park.resolve(null);
    });
    LIVE.add(this);
    this.#record = this.#process.then((result) => {
      this.#exited = true;
      if (spec.stdoutFile) writeFileSync(spec.stdoutFile, String(result.stdout ?? ''));
      if (spec.stderrFile) writeFileSync(spec.stderrFile, String(result.stderr ?? ''));
      LIVE.delete(this);
      return {
        pid: this.pid,
        exit_code: result.exitCode ?? null,
        signal: result.signal ?? null,
        duration_ms: Math.round(result.durationMs),
        started_at_ms: startedAt,
        last_point: lastLine(spec.traceFile),
        role: spec.role,
        error_code: reportedCode(String(result.stderr ?? '')),
        ...reportedOutcome(String(result.stdout ?? '')),
        ...(spec.journalRef ? { journal: spec.journalRef } : {}),
      } satisfies AttemptRecord;
    });
  }

  #park(index: number) {
    while (this.#parks.length <= index) {
      let resolve!: (event: ParkedEvent | null) => void;
      const promise = new Promise<ParkedEvent | null>((done) => (resolve = done));
      this.#parks.push({ promise, resolve });
    }
    return this.#parks[index]!;
  }

  static start(spec: WorkerSpec): Worker {
    return new Worker(spec);
  }

  /**
   * Resolves when the worker parked for the `nth` time (1-based; its stop point, then its further
   * stops in the order reached), or null when it exited first.
   */
  parked(nth = 1): Promise<ParkedEvent | null> {
    const park = this.#park(nth - 1);
    if (this.#exited) park.resolve(null);
    return park.promise;
  }

  get running(): boolean {
    return !this.#exited;
  }

  #signal(signal: NodeJS.Signals): void {
    if (this.#exited) return;
    try {
      process.kill(this.pid, signal);
    } catch {
      // already gone: its record says how it ended
    }
  }

  /** SIGKILL from outside: never a cooperative exit. */
  kill(): void {
    this.#signal('SIGKILL');
  }

  /** SIGSTOP: the process freezes where it is (its lease keeps ticking away). */
  pause(): void {
    this.#signal('SIGSTOP');
  }

  /** SIGCONT after a pause. */
  continue(): void {
    this.#signal('SIGCONT');
  }

  /** Releases a parked worker past its stop point. */
  resume(): void {
    this.#signal(RESUME_SIGNAL);
  }

  /** Waits for the process to end and returns its attempt record. */
  result(): Promise<AttemptRecord> {
    return this.#record;
  }

  /** Kills a still-running worker (also a stopped one) and waits for it. */
  async [Symbol.asyncDispose](): Promise<void> {
    if (!this.#exited) {
      this.#signal('SIGKILL');
      this.#signal('SIGCONT');
    }
    await this.#record;
  }
}

/** Runs a worker to its end (no stop point) and returns its record. */
export async function runToEnd(spec: WorkerSpec): Promise<AttemptRecord> {
  await using worker = Worker.start(spec);
  return await worker.result();
}

/**
 * Runs a worker until it parks at its stop point, then SIGKILLs it there. `hit` says whether the
 * point was reached (false: the worker ended first and the record shows how).
 */
export async function killAt(spec: WorkerSpec): Promise<{ record: AttemptRecord; hit: boolean }> {
  await using worker = Worker.start(spec);
  const parked = await worker.parked();
  if (parked) worker.kill();
  return { record: await worker.result(), hit: parked !== null };
}
