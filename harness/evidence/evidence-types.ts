import type { PlanRecord } from './plan-types.ts';
import type { Verdict } from '../verdict.ts';

/** The public evidence contract, `dpone.evidence/v1`. Fields may be added, never removed. */
export const EVIDENCE_SCHEMA = 'dpone.evidence/v1';

export interface AttemptRecord {
  readonly pid: number;
  readonly exit_code: number | null;
  readonly signal: string | null;
  readonly duration_ms: number;
  /**
   * When the attempt was started, in ms since the epoch on the cell's clock (the clock the
   * journal's `at_ms` is on), for placing it on the report's swimlane. Absent in older evidence.
   */
  readonly started_at_ms?: number;
  /** Last fault point the attempt reached (from its trace), or null when it reached none. */
  readonly last_point: string | null;
  /** Worker role in the cell: "first", "recovery", "race-3", "paused", "airflow-try-2", … */
  readonly role: string;
  /** Error code the attempt reported, when it reported one. */
  readonly error_code?: string | null;
  /** `dpone run --json` status on success (`committed`, `already-complete`, …), when reported. */
  readonly status?: string;
  /** Whether the attempt claimed that its own write is what the target holds (`mutated`). */
  readonly mutated?: boolean | null;
  /** The journal the attempt used when it was not the cell's own (`fork`: a second deployment's). */
  readonly journal?: 'fork';
  /** The cell's fault destroyed this attempt's committed write afterwards (lost-commit: a failover). */
  readonly write_lost?: true;
  /** `second`: the attempt ran another operation on the same partition (CellExpectation.operations). */
  readonly operation?: 'second';
}

export interface FaultRecord {
  readonly kind: string;
  readonly point?: string;
  readonly attempt?: number;
  readonly hit?: number;
  /** Depth-2 crash: the point killed in the recovery attempt. */
  readonly recovery_point?: string;
  /** Network faults. */
  readonly toxic?: string;
  readonly phase?: string;
  /** Server faults. */
  readonly server?: string;
  /** Race size, random kill delay, Airflow tries… */
  readonly workers?: number;
  readonly delay_ms?: number;
  readonly variant?: string;
  readonly [extra: string]: unknown;
}

export interface CheckRecord {
  readonly name: string;
  readonly verdict: Verdict;
  readonly detail: string;
}

/** What the target held at the end of the cell, read by the harness itself. */
export interface TargetSnapshot {
  /** How many times the mutation landed, from the harness's own audit (not the fence). */
  readonly mutations: number;
  readonly duplicate_rows: number;
  readonly row_parity: boolean;
  readonly row_count: number;
  /** Rows the target must hold after one load (the source partition, plus what a load keeps). */
  readonly source_row_count: number;
  /**
   * Source rows of the loaded partition: the size of one whole mutation. Differs from
   * source_row_count when the target keeps rows of other partitions. Absent in older evidence
   * (then source_row_count is the batch).
   */
  readonly batch_rows?: number;
  /** Order-independent digests (sha256 over sorted row digests): never row values. */
  readonly target_digest: string;
  readonly source_digest: string;
  /** Natural-key digests of duplicated rows (for showing "the duplicate" without row values). */
  readonly duplicate_keys: readonly string[];
  /** Value-free raw data `certify verify` recomputes the fields above from (absent if not recorded). */
  readonly audit?: TargetAuditTrail;
  /**
   * Without parity: the first natural key, in key order, at which the target differs from what it
   * must hold, read by the inspector from the rows themselves (the trail cannot recompute it).
   * Absent with parity, and in evidence from before it was recorded.
   */
  readonly first_difference?: TargetFirstDifference;
}

/**
 * Where parity first fails, value-free: the natural key (identifiers, printable) and how the
 * target differs there — `missing` (expected, not in the target, or fewer times), `extra` (in the
 * target, not expected), `duplicate` (in the target more times than expected), `value` (present
 * as often as expected; `columns` names the differing columns, never their values).
 */
export interface TargetFirstDifference {
  /** Natural-key column to its value in canonical text (null for a NULL key part). */
  readonly key: Readonly<Record<string, string | null>>;
  readonly kind: 'missing' | 'extra' | 'duplicate' | 'value';
  readonly columns?: readonly string[];
}

/** The harness audit as read back from the target: digests and counts only, never row values. */
export interface TargetAuditTrail {
  /**
   * How mutations were told apart: `transaction` (the audit logs a transaction id per insert),
   * `serialized-runs` (an embedded file: one writer at a time, so a mutation's inserts form one
   * contiguous run in audit order; a new run starts where a natural key repeats), or `server-part`
   * (a staging target: one record per part the server created by an insert, attach or replace,
   * read from its own part log and part list, by that engine's inspector).
   */
  readonly marker_kind: 'transaction' | 'serialized-runs' | 'server-part';
  /** One record per mutation the audit saw, in commit order. */
  readonly mutation_records: readonly { readonly marker: string; readonly rows: number }[];
  /** Audited inserts in total (an insert that rolled back leaves no audit row). */
  readonly audited_inserts: number;
  /** Natural-key digest of every target row, sorted. */
  readonly target_row_keys: readonly string[];
  /** sha256 of every target row's canonical JSON, sorted. */
  readonly target_row_digests: readonly string[];
  /**
   * Set when the two row lists above were left out (empty) because the target held this many rows,
   * more than TRAIL_ROW_LIMIT: 2 digests a row would make a 1,000,000-row cell's evidence ~150 MB.
   * `certify verify` then recomputes the mutation count from mutation_records and parity from the
   * stored digests, not duplicates or the target digest from the rows.
   */
  readonly row_lists_omitted?: number;
}

/** What a cell must end in; stored with the cell so `certify verify` re-checks the same thing. */
export interface CellExpectation {
  /**
   * `complete`: exactly one mutation and the journal at COMPLETE. `stopped` (COMMIT_UNKNOWN, an
   * intent conflict's second operation): at most one mutation and no replay.
   */
  readonly end: 'complete' | 'stopped';
  /**
   * Operations that load the cell's partition (default 1). 2: another operation (another id, the
   * same rows) loads it too, each must land exactly once, and the target must still equal the source.
   */
  readonly operations?: number;
  /** An error code at least one attempt must have reported (e.g. the intent conflict). */
  readonly error_code?: string;
  /** The core checks the scenario selected, by name (absent: all of them). */
  readonly checks?: readonly string[];
}

export interface JournalSnapshot {
  readonly final_state: string | null;
  readonly version: number | null;
  readonly history_legal: boolean;
  /** The full history, as the journal returned it (safe fields only). */
  readonly history: readonly {
    readonly version: number;
    readonly kind: string;
    readonly from_state: string | null;
    readonly to_state: string;
    readonly at_ms: number;
    readonly lease_epoch: number | null;
    /**
     * The lease holder after this change, as an alias (`e1`, `e2`, … by first appearance in the
     * history; `harness` for a staged record): never the holder's name. Absent in older evidence.
     */
    readonly lease_holder?: string | null;
    /** Who wrote this record (the executor's or operator's holder, aliased like lease_holder). */
    readonly writer?: string | null;
    readonly reason: string;
    /** The fence's answer recorded on the transition, when it carried one. */
    readonly fence_status?: string | null;
    /** True when the harness wrote this record itself (a staged state), not a worker or an operator. */
    readonly staged?: boolean;
  }[];
}

/** One place the harness looked for the operation's fence row, and what it found there. */
export interface FenceLocationReading {
  /** e.g. `_dpone_fence`, `_dpone_fence_lost` (renamed), `<schema>._dpone_fence` (moved view). */
  readonly where: string;
  /** Whether a fence table exists there. */
  readonly table: boolean;
  /** The operation's row status there (`prepared`, `committed`, …), or null when it has no row. */
  readonly status: string | null;
  readonly epoch: number | null;
}

/** The harness's own reading of the target fence (its connection, never the connector under test). */
export interface FenceReading {
  readonly locations: readonly FenceLocationReading[];
}

/** What `dpone recovery target-commit inspect --json` said about the cell's final state. */
export interface InspectReading {
  readonly exit_code: number;
  readonly error_code: string | null;
  /** The assessment, when inspect succeeded. */
  readonly assessment: {
    readonly kind: string;
    readonly state: string;
    readonly version: number;
    readonly fence: string;
  } | null;
  /** Whether the journal's bytes (or rows) were the same before and after; null: not measured. */
  readonly journal_unchanged: boolean | null;
}

/** What a journal-loss or fence-loss cell observed at its end, for the loss checks. */
export interface LossObservation {
  /** Null when the fence could not be read (`fence_error` says why). */
  readonly fence: FenceReading | null;
  readonly fence_error?: string;
  readonly inspect: InspectReading | null;
  /** The second deployment's journal (fork cells): attempts marked `journal: 'fork'` used it. */
  readonly fork_journal?: JournalSnapshot | null;
  /** Fence-loss cells that dropped or renamed the fence: its own place must stay empty (no retry recreates it). */
  readonly fence_removed?: boolean;
}

/** One try of an Airflow task instance, as Airflow's metadata reports it, with what dpone did. */
export interface AirflowTryRecord {
  readonly try_number: number;
  /** The state Airflow recorded for this try (success, failed, …; null if it never ran). */
  readonly state: string | null;
  /** The per-try folder the task used (the pod's stand-in), when it got as far as running dpone. */
  readonly folder?: number;
  /** How `dpone run` exited in this try (negative: the signal that ended it; null: unknown). */
  readonly dpone_exit?: number | null;
  /** What `dpone run` reported in this try's XCom (committed, already-complete, failed, …). */
  readonly dpone_status?: string | null;
  /** The error code in this try's XCom, when dpone failed with one. */
  readonly dpone_code?: string | null;
  /** What the harness did to this try: `pod-killed@<point>`, `runner-killed@<point>`, … */
  readonly harness_action?: string | null;
}

/** One DAG run of an airflow-live cell, read from Airflow's REST API before the run was removed. */
export interface AirflowRunRecord {
  readonly run_id: string;
  readonly run_type: string;
  readonly data_interval: string | null;
  /** The task instance's final state and Airflow's retry budget (max_tries = retries + clears). */
  readonly task_state: string | null;
  readonly max_tries: number;
  readonly tries: readonly AirflowTryRecord[];
  /** What the cell required of this run: its final task state and its number of tries. */
  readonly expected: { readonly task_state: string; readonly tries: number };
}

/** What a real Airflow did in an airflow-live cell (evidence extension; absent for other cells). */
export interface AirflowRecord {
  readonly version: string;
  readonly dag_id: string;
  readonly task_id: string;
  readonly runs: readonly AirflowRunRecord[];
  /** Distinct operations the cell's journal holds at the end (one: every run was one operation). */
  readonly operations: number;
  /**
   * The rollout mode the DAG's `dpone run` ran under (absent: enforced, the protocol). In shadow
   * mode a retry writes again by design: the shadow checks decide the cell, not one mutation.
   */
  readonly mode?: 'shadow';
}

export interface CellEvidence {
  readonly id: string;
  readonly scenario: string;
  readonly route: string;
  readonly variant: string | null;
  readonly fault: FaultRecord;
  readonly verdict: Verdict;
  /** What the checker required of this cell (absent: `complete`). */
  readonly expectation?: CellExpectation;
  readonly checks: readonly CheckRecord[];
  readonly attempts: readonly AttemptRecord[];
  readonly target: TargetSnapshot | null;
  readonly journal: JournalSnapshot | null;
  /** Journal-loss and fence-loss cells: the fence as the harness read it, and inspect's verdict. */
  readonly loss?: LossObservation;
  readonly reproduce: string;
  readonly duration_ms: number;
  /** airflow-live cells: the DAG runs and tries Airflow recorded. */
  readonly airflow?: AirflowRecord;
}

/** An unsafe variant's state, as mutation-testing reports name them. */
export type VariantState = 'killed' | 'survived' | 'not-run';

export interface SensitivityRecord {
  readonly variant: string;
  readonly caught: boolean;
  /**
   * killed: a cell caught it; survived: cells ran and none caught it; not-run: none of its cells
   * could run here (never counted as survived). Absent in evidence written before it existed.
   */
  readonly state?: VariantState;
  readonly cells_failed: number;
  /** Cells of this variant that ran (not UNVERIFIED). */
  readonly cells_run: number;
  /** Cells of this variant that could not run here (UNVERIFIED); absent when none. */
  readonly cells_not_run?: number;
  /** The catching checks that FAILed on the cells that caught it, by name; absent when not caught. */
  readonly killed_by?: readonly string[];
  /** Why its cells could not run (the environment's reason); only for state not-run. */
  readonly not_run_reason?: string;
  /**
   * Planned cells of this variant not run because one of its cells had already caught it (mutation
   * testing's "stop once killed"); absent when none was skipped.
   */
  readonly cells_skipped?: number;
  /** One failing cell id that shows the duplicate, when caught. */
  readonly example_cell?: string;
}

/**
 * A planned unsafe-variant cell the run did not start because another cell of the same variant had
 * already caught it. `certify merge` and `certify gate` accept it only when `caught_by` is a cell of
 * the evidence, of the same variant, that catches it.
 */
export interface SkippedVariantCell {
  readonly id: string;
  readonly variant: string;
  readonly caught_by: string;
}

export interface Evidence {
  readonly schema: typeof EVIDENCE_SCHEMA;
  readonly run_id: string;
  readonly seed: number;
  readonly route: string;
  readonly provider: string;
  readonly started_at: string;
  readonly duration_ms: number;
  readonly environment: {
    readonly node: string;
    readonly platform: string;
    readonly databases: Readonly<Record<string, string>>;
    readonly toxiproxy: string | null;
    readonly runtime_version: string;
    readonly connector_version: string;
    readonly [extra: string]: unknown;
  };
  readonly verdict: Verdict;
  readonly cells: readonly CellEvidence[];
  readonly sensitivity: readonly SensitivityRecord[];
  /** Planned variant cells not run because their variant was already caught (absent: none). */
  readonly skipped_variant_cells?: readonly SkippedVariantCell[];
  /**
   * What the cells were planned from (scenario digests, seed override, recorded traces, plan
   * digest): `certify merge` and `certify gate` plan again from it and refuse missing or extra
   * cells. Absent in evidence written before it existed (the gate then refuses it).
   */
  readonly plan?: PlanRecord;
  /** Shard this evidence covers, e.g. {index: 1, count: 3}; absent for a whole run. */
  readonly shard?: { readonly index: number; readonly count: number };
  /** sha256 over the canonical JSON of everything but this field (set by the writer). */
  readonly digest?: string;
}

/** Every planned cell id an evidence accounts for: the cells it ran and the variant cells it listed as not run. */
export function accountedCellIds(evidence: Evidence): string[] {
  return [
    ...evidence.cells.map((cell) => cell.id),
    ...(evidence.skipped_variant_cells ?? []).map((skip) => skip.id),
  ];
}
