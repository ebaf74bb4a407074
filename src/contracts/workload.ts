import type { IntentInput, OperationIdentityInput } from './identity.ts';

/** Load strategies a workload may ask for; `intent.normalized_load_strategy` must equal one. */
export const LOAD_STRATEGIES = ['append', 'replace-partition'] as const;
export type WorkloadLoadStrategy = (typeof LOAD_STRATEGIES)[number];

/** A database endpoint. `url` carries no password: secrets come from `password_env`. */
export interface EndpointSpec {
  /** e.g. `sqlite:///abs/or/relative.db`, `postgres://user@127.0.0.1:5432/db`. */
  readonly url: string;
  /** Name of the environment variable holding the password, if the server needs one. */
  readonly password_env?: string;
  /** Table name (optionally schema-qualified), e.g. `events` or `public.events`. */
  readonly table: string;
}

/** The target endpoint, plus where its fence lives. */
export interface TargetSpec extends EndpointSpec {
  /**
   * The schema of the fence table (PostgreSQL: default the URL's `?schema=`, else `public`; MSSQL:
   * default `dbo`). Temporary and system schemas are refused. SQLite has none (always `main`).
   */
  readonly fence_schema?: string;
}

/**
 * A parsed, validated workload file. YAML form (see src/contracts/workload.schema.json):
 *
 *   identity: { release_id, deployment_id, dag_id, dag_run_logical_identity, workload_id,
 *               mapped_partition_identity, canonical_interval: { start, end }, canonical_target_identity }
 *   intent:   { pack_fingerprint, normalized_load_strategy, source_snapshot_or_partition_identity,
 *               target_contract, schema_fingerprint }
 *   route: sqlite            # connector route id: sqlite | postgres | clickhouse | mssql
 *   source: { url, table, password_env? }
 *   target: { url, table, password_env?, fence_schema? }
 *   data:   { columns: [..], natural_key: [..], partition: { column, value } }
 *   journal: sqlite:///path  # optional; --journal overrides; ?durability=shared marks a file durable
 *   execution: { lease_ttl_ms?, state_dir? }
 */
export interface Workload {
  /** Absolute path of the file it was read from; relative sqlite paths resolve against its folder. */
  readonly file: string;
  readonly identity: OperationIdentityInput;
  readonly intent: IntentInput;
  readonly route: string;
  readonly source: EndpointSpec;
  readonly target: TargetSpec;
  readonly data: {
    readonly columns: readonly string[];
    readonly natural_key: readonly string[];
    readonly partition: { readonly column: string; readonly value: string };
  };
  readonly journal?: string;
  readonly execution: {
    readonly lease_ttl_ms: number;
    /** Where checkpoints and completion evidence are written (default: beside the workload). */
    readonly state_dir?: string;
  };
}
