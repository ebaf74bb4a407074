import type { IntentData, IntentInput, OperationIdentityInput } from './identity.ts';

/** Load strategies a workload may ask for; `intent.normalized_load_strategy` must equal one. */
export const LOAD_STRATEGIES = ['append', 'replace-partition'] as const;
export type WorkloadLoadStrategy = (typeof LOAD_STRATEGIES)[number];

/** A database endpoint. `url` carries no password: secrets come from `password_env`. */
export interface EndpointSpec {
  /** A file's URL (`<scheme>:///abs/or/relative.db`) or a server's (`<scheme>://user@host:5432/db`). */
  readonly url: string;
  /** Name of the environment variable holding the password, if the server needs one. */
  readonly password_env?: string;
  /** Table name (optionally schema-qualified), e.g. `events` or `public.events`. */
  readonly table: string;
  /**
   * A connector plug-in module (npm package name, or a path relative to the workload file) that
   * opens this endpoint instead of a built-in connector; the route is then the plug-in's own id.
   */
  readonly connector?: string;
}

/**
 * Opt-in creation of a missing target table (where the target's engine offers it): every column of
 * data.columns with its type. Without it a missing target table is refused
 * (DPONE_OBJECT_NOT_FOUND). The created table has no keys or constraints; create the table
 * yourself when you need them.
 */
export interface TargetCreateSpec {
  /** Column name → the target's SQL type, e.g. `{ id: bigint, day: date, amount: numeric(12,2) }`. */
  readonly columns: Readonly<Record<string, string>>;
}

/** The target endpoint, plus where its fence lives and what may be created there. */
export interface TargetSpec extends EndpointSpec {
  /**
   * The schema of the fence table, where the target's engine has schemas (its default and the
   * schemas it refuses are the engine's workload rules; docs/runtime.md lists each engine's).
   */
  readonly fence_schema?: string;
  readonly create?: TargetCreateSpec;
  /**
   * `none`: the target is written WITHOUT a fence (capability `none`): plain writes, nothing to
   * prove an outcome with, so every run that began the mutation ends COMMIT_UNKNOWN and an operator
   * settles it. Absent: the route's certified fence.
   */
  readonly fence?: 'none';
  /**
   * `false`: a run that finds its journal entry COMPLETE answers already-complete without reading
   * the target's fence (for targets where that read is expensive). Default: it reads the fence and
   * stops with DIVERGED when the target lost the commit (a failover to a replica that never
   * received it, a crash that lost an unflushed commit).
   */
  readonly confirm_complete?: false;
}

/**
 * A parsed, validated workload file. YAML form (see schemas/workload.v1.json):
 *
 *   identity: { release_id, deployment_id, dag_id, dag_run_logical_identity, workload_id,
 *               mapped_partition_identity, canonical_interval: { start, end }, canonical_target_identity }
 *   intent:   { pack_fingerprint, normalized_load_strategy, source_snapshot_or_partition_identity,
 *               target_contract, schema_fingerprint }
 *   route: <id>              # a built-in route (src/cli/route-names.ts), or a plug-in route's id
 *   (source|target).connector: a plug-in module (npm package or path) opening that endpoint
 *   source: { url, table, password_env? }
 *   target: { url, table, password_env?, fence_schema?, fence?: none, create?: { columns: { name: type } } }
 *   data:   { columns: [..], natural_key: [..], partition: { column, value, allow_empty? } }
 *   journal: <url>           # optional; --journal overrides; ?durability=shared marks a file durable
 *   execution: { lease_ttl_ms?, state_dir? }
 */
export interface Workload {
  /** Absolute path of the file it was read from; relative file paths in URLs resolve against its folder. */
  readonly file: string;
  readonly identity: OperationIdentityInput;
  readonly intent: IntentInput;
  readonly route: string;
  readonly source: EndpointSpec;
  readonly target: TargetSpec;
  readonly data: {
    readonly columns: readonly string[];
    readonly natural_key: readonly string[];
    /**
     * The one partition moved: rows whose column equals value, compared in the column's type.
     * An empty partition is refused (nothing written) unless `allow_empty` is true.
     */
    readonly partition: { readonly column: string; readonly value: string; readonly allow_empty?: boolean };
  };
  readonly journal?: string;
  readonly execution: {
    readonly lease_ttl_ms: number;
    /** Where checkpoints and completion evidence are written (default: beside the workload). */
    readonly state_dir?: string;
  };
}

/** What the run reads and writes, as the intent digest covers it (IntentData). */
export function intentDataOf(workload: Pick<Workload, 'source' | 'target' | 'data'>): IntentData {
  return {
    source_table: workload.source.table,
    target_table: workload.target.table,
    columns: workload.data.columns,
    natural_key: workload.data.natural_key,
    partition_column: workload.data.partition.column,
    partition_value: workload.data.partition.value,
  };
}
