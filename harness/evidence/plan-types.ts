/**
 * The plan a run records in its evidence (`plan`), as data: evidence-types.ts holds it, and
 * plan/plan-record.ts builds and reads it. Imports nothing, so evidence and plan never import each
 * other in a circle.
 */

/** How a recorded reference run ended when it did not end cleanly (nothing can be planned from it). */
export interface ReferenceFailure {
  readonly exit_code: number | null;
  readonly signal: string | null;
  readonly error_code: string | null;
  readonly last_point: string | null;
}

/**
 * What a run planned its cells from, stored in the evidence (`plan`) so that `certify merge` and
 * `certify gate` can plan again themselves — from the scenario files on disk, the seed and these
 * recorded traces — and refuse evidence whose cells are not exactly that plan (a shard or run that
 * silently skipped cells, or ran extra ones).
 */
export interface PlanRecord {
  /** `--seed` when it overrode every scenario's own seed, else null. */
  readonly seed_override: number | null;
  /** Each scenario file the run loaded, with a digest of its parsed content. */
  readonly scenarios: readonly PlannedScenario[];
  /** The recorded traces the cells were enumerated from, by trace key (see traceKey). */
  readonly traces: Readonly<Record<string, StoredTraceBook>>;
  /** planDigest over every planned cell id (all shards, variants included). */
  readonly digest: string;
  /** How many cells the whole plan has. */
  readonly cells: number;
}

export interface PlannedScenario {
  readonly name: string;
  /** As given, relative to the working folder of the run. */
  readonly file: string;
  /** sha256 over the canonical JSON of the parsed scenario: comments and layout do not count. */
  readonly sha256: string;
}

/** A TraceBook as data: occurrences as `point#hit`, and the durable-state digest of each kill. */
export interface StoredTraceBook {
  readonly clean: readonly string[];
  /** The clean run with its statement points in place (TraceBook.statements), when recorded. */
  readonly statements?: readonly string[];
  readonly recovery: Readonly<Record<string, readonly string[]>>;
  readonly fingerprints: Readonly<Record<string, string>>;
  /** How the reference run ended when it did not end cleanly (TraceBook.referenceFailure). */
  readonly reference_failure?: ReferenceFailure;
}
