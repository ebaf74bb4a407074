import type { LocalAirflow } from '../env/airflow/local-airflow.ts';
import type { TargetCommitJournalPort } from '../../src/ports/journal.ts';
import type {
  AirflowRecord,
  AttemptRecord,
  CellExpectation,
  CheckRecord,
  LossObservation,
} from '../evidence/evidence-types.ts';
import type { StartedEnvironment } from '../env/environment.ts';
import type { CellDraft, PlannedCell } from '../plan/cell.ts';
import type { TraceBook, TraceOccurrence } from '../plan/trace.ts';
import type { CellFixture, Route, RouteCapabilities } from '../routes/route.ts';
import type { FaultKind, FaultSpec, FaultSpecOf } from '../scenario/scenario-schema.ts';
import type { Worker } from '../workers/worker.ts';

/** Default lease TTL of generated workloads for cells that never need a takeover. */
export const NORMAL_LEASE_TTL_MS = 30_000;
/**
 * Lease TTL for cells whose next worker must take over a killed one. The harness arranges the
 * expiry (CellRun.expireLeases) instead of waiting for it, except for a real Airflow's tries,
 * which it waits out: short, so that wait is a fraction of a second. Safe to keep shorter than a
 * run: an executor keeps the lease it holds for its whole execution, and these cells never run
 * two live workers at once.
 */
export const TAKEOVER_LEASE_TTL_MS = 150;

export interface PlanContext {
  readonly seed: number;
  readonly traces: TraceBook;
  /** The route's loss modes (Route.lossModes): what a loss fault runs when its scenario names none. */
  readonly lossModes?: Route['lossModes'];
  /** What the route's cells can do (proxies, servers to kill, its own network phases). */
  readonly capabilities?: Route['capabilities'];
  /** `none`: the scenario's target is written without a fence (capability none, plain writes). */
  readonly fence?: 'none';
}

export interface WorkerOptions {
  readonly stop?: TraceOccurrence;
  /** More places to park after `stop` (Worker.parked(n) waits for the n-th). */
  readonly stops?: readonly TraceOccurrence[];
  /** Another journal than the cell's (a second deployment); the attempt record is marked with `ref`. */
  readonly journal?: { readonly url: string; readonly ref: 'fork' };
  /** Another workload file (intent conflict). */
  readonly workloadFile?: string;
  readonly extraArgs?: readonly string[];
  /** dpone arguments instead of `run --workload … --journal … --json` (e.g. a recovery apply). */
  readonly command?: readonly string[];
  /** More environment for the worker (e.g. libfaketime's, to skew its clock). */
  readonly env?: Readonly<Record<string, string>>;
  /** Keep the worker's stdout in this file (WorkerSpec.stdoutFile). */
  readonly stdoutFile?: string;
  /** Keep the worker's stderr in this file (WorkerSpec.stderrFile). */
  readonly stderrFile?: string;
}

/** What a fault module gets to run one cell: the cell, its fresh fixture and worker helpers. */
export interface CellRun {
  readonly cell: PlannedCell;
  readonly dir: string;
  readonly fixture: CellFixture;
  /** Starts a worker on this cell's workload/journal/variant with its own trace file. */
  start(role: string, options?: WorkerOptions): Worker;
  /** Runs a worker to its end. */
  run(role: string, options?: WorkerOptions): Promise<AttemptRecord>;
  /** Runs a worker until it parks at `stop`, SIGKILLs it there; `hit` false if it ended first. */
  killAt(
    role: string,
    stop: TraceOccurrence,
    options?: WorkerOptions,
  ): Promise<{ record: AttemptRecord; hit: boolean }>;
  /**
   * Replaces the cell's durable state with a recorded one (see Route.copyCellState); false when
   * the route cannot, and the caller must produce that state itself.
   */
  restore(fromDir: string): Promise<boolean>;
  /**
   * Arranges that the next worker this cell starts finds every lease expired (a killed or paused
   * worker's), by moving the cell's clock past them (see harness/runner/cell-clock.ts): no waiting.
   * `openJournal`: where the leases are, when a fault keeps the journal elsewhere than the
   * fixture's (the power-loss filesystem); by default the fixture's own journal.
   */
  expireLeases(openJournal?: () => Promise<TargetCommitJournalPort>): Promise<void>;
  /** Sleeps until no lease is live on the machine's clock: for workers the harness does not start (Airflow's). */
  waitForLeaseExpiry(): Promise<void>;
  /** Now on the cell's clock, for what the harness itself writes into the journal. */
  nowMs(): number;
  /** Trace file of a finished attempt, by role. */
  traceOf(role: string): Promise<readonly TraceOccurrence[]>;
  /** The run's local Airflow, started when the plan has airflow-live cells (else null). */
  readonly airflow: LocalAirflow | null;
}

export interface CellOutcome {
  readonly attempts: readonly AttemptRecord[];
  /** Whether the planned fault fired (the point was reached, the workers were released...). */
  readonly hit: boolean;
  readonly expectation?: CellExpectation;
  /** Checks the fault itself makes (e.g. the intent conflict touched no source or target). */
  readonly extraChecks?: readonly CheckRecord[];
  /**
   * False when the operation must stay where the fault left it (no settle worker); `unless-complete`
   * when the fault's own last worker already was the late retry (pause: the zombie resumed after
   * the operation completed), so a settle worker runs only if the journal did not reach COMPLETE;
   * `operator` when a run must have stopped at COMMIT_UNKNOWN: the harness resolves it as the
   * operator from the target's rows, then settles (as for a target without a fence). `never`: no
   * settle worker and no operator either, also on a fenceless target (legacy and shadow writes).
   */
  readonly settle?: boolean | 'unless-complete' | 'operator' | 'never';
  /** Called after the settle worker (loss faults): the fence and inspect's view of the end state. */
  readonly observe?: () => Promise<LossObservation>;
  /** What the fault found while it ran, added to the cell's fault record (e.g. where a timed kill landed). */
  readonly fault?: Readonly<Record<string, string | number | null>>;
  /** airflow-live: what Airflow recorded; the runner adds the Airflow checks computed from it. */
  readonly airflow?: AirflowRecord;
}

/** A fault kind: expands a scenario's fault into cells, and runs one cell. */
export interface FaultModule<K extends FaultKind = FaultKind> {
  readonly kind: K;
  /** Lease TTL the generated workload gets for this fault's cells. */
  leaseTtlMs(spec: FaultSpecOf<K>): number;
  /** Deterministic: the same spec, seed and traces give the same drafts in the same order. */
  plan(spec: FaultSpecOf<K>, context: PlanContext): readonly CellDraft[];
  run(run: CellRun, spec: FaultSpecOf<K>): Promise<CellOutcome>;
  /**
   * Optional: why this environment cannot run the fault's cells at all (e.g. it owns no server to
   * kill; given the route's capabilities: unless its own parts start one), or null. The runner then
   * records the cell UNVERIFIED with that reason, without running it.
   */
  unavailableIn?(environment: StartedEnvironment, capabilities?: RouteCapabilities): string | null;
}

export type { FaultSpec };

/**
 * A cell whose attempts the fault drove to the end itself, with no settle run: the last attempt
 * must have completed the operation. `checks` are the fault's own; `fault` what it measured.
 */
export function completedOutcome(
  attempts: readonly AttemptRecord[],
  checks: readonly CheckRecord[],
  fault?: CellOutcome['fault'],
): CellOutcome {
  return {
    attempts,
    hit: true,
    settle: false,
    expectation: { end: 'complete' },
    extraChecks: checks,
    ...(fault === undefined ? {} : { fault }),
  };
}

/**
 * A cell its route or this machine cannot run (a connection it does not proxy, a server it does
 * not own, a file system it cannot mount): nothing runs, and the cell is UNVERIFIED with the reason
 * (never PASS), under the check `name` that says what was missing.
 */
export function unverifiedOutcome(detail: string, name = 'route-capability'): CellOutcome {
  return {
    attempts: [],
    hit: true,
    settle: false,
    expectation: { end: 'stopped' },
    extraChecks: [{ name, verdict: 'UNVERIFIED', detail }],
  };
}
