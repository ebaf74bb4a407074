import type { ParityOptions } from '../inspectors/parity-basis.ts';
import type { Dataset } from '../data/dataset.ts';
import { NEIGHBOUR_DAY } from '../data/dataset.ts';
import type { WorkloadEndpoint } from './parts.ts';
import type { CellWorkloadOptions } from './route.ts';

/** The target table every route's cells load into. */
export const CELL_TARGET_TABLE = 'events';

/**
 * What a cell's target inspector compares the target with (parity-basis.ts): the dataset's column
 * types, and the rows the target held before the load under the cell's strategy.
 */
export function cellParity(dataset: Dataset, options: CellWorkloadOptions): ParityOptions {
  return {
    types: Object.fromEntries(dataset.columns.map((c) => [c.name, c.type])),
    before: { rows: dataset.target, strategy: options.strategy, partition: dataset.partition },
  };
}

/**
 * The generated workload of a composed cell: the same identity on every route (so an operation id
 * names one logical load), the source and target blocks the parts contributed, and the journal.
 * `schemaFingerprint` changes only the intent (an intent-conflict cell's second workload);
 * `releaseId` only the identity (a second operation on the same partition).
 */
export function cellWorkload(
  route: { readonly id: string; readonly target: string },
  dataset: Dataset,
  options: CellWorkloadOptions,
  ends: { readonly source: WorkloadEndpoint; readonly target: WorkloadEndpoint; readonly journal: string },
  schemaFingerprint: string,
  releaseId = 'cert-release-1',
) {
  const { partition } = dataset;
  const day = partition.value;
  const columns = dataset.columns.map((c) => c.name);
  return {
    identity: {
      release_id: releaseId,
      deployment_id: 'cert-deployment',
      dag_id: 'certify_dag',
      dag_run_logical_identity: `scheduled__${day}`,
      workload_id: 'events_load',
      mapped_partition_identity: `${partition.column}=${day}`,
      canonical_interval: { start: `${day}T00:00:00.000Z`, end: `${NEIGHBOUR_DAY}T00:00:00.000Z` },
      canonical_target_identity: `${route.target}:${CELL_TARGET_TABLE}`,
    },
    intent: {
      pack_fingerprint: 'pack-v1',
      normalized_load_strategy: options.strategy,
      source_snapshot_or_partition_identity: `${dataset.table}/${partition.column}=${day}`,
      target_contract: `${CELL_TARGET_TABLE}(${columns.join(',')})`,
      schema_fingerprint: schemaFingerprint,
    },
    route: route.id,
    source: ends.source,
    // fence: none writes the same target without a fence (capability none; plain writes).
    target: { ...ends.target, ...(options.fence ? { fence: options.fence } : {}) },
    data: {
      columns,
      natural_key: [...dataset.naturalKey],
      partition: {
        column: partition.column,
        value: day,
        // An empty partition is refused unless said; a cell that loads one says so.
        ...(options.rows === 0 ? { allow_empty: true } : {}),
      },
    },
    journal: ends.journal,
    execution: { lease_ttl_ms: options.leaseTtlMs, state_dir: 'state' },
  };
}
