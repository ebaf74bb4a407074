import { cellBig } from '../data/cell-numbers.ts';
import { cellInstant } from '../data/cell-instants.ts';
import { cellLabel } from '../data/cell-text.ts';
import { deriveSeed, randomInt, seededRandom } from '../data/seeded-random.ts';
import type { CellScalar } from '../checkers/target-snapshot.ts';
import type { EmbeddedHost } from './parts.ts';
import type { CellWorkloadOptions } from './route.ts';
import type { CellTable } from './target-part.ts';
import type { VariantData } from '../../src/ports/unsafe-variants.ts';

/*
 * The seeded source and workload of a plug-in route's cells (the source is a file of the embedded
 * engine's: parts.ts EmbeddedHost). A plug-in's target part is told its table in the published CellTable
 * form (dpone-cert/testing: integer and text columns, no rows before the load), which cannot carry the composed routes' dataset (harness/data: dates,
 * doubles, target rows a replace must remove), so plug-in cells keep this fixed table and their
 * own path (plugin-route.ts: this source, the plug-in's target part, the embedded cell journal)
 * instead of compose-route.ts.
 */

export const TABLE = 'events';
export const COLUMNS = ['id', 'day', 'amount', 'label', 'big', 'at'] as const;
/** The columns' kinds, as a plug-in route's target part is told them. */
export const COLUMN_TYPES = {
  id: 'integer',
  day: 'text',
  amount: 'integer',
  label: 'text',
  big: 'integer',
  at: 'text',
} as const;
export const DAY = '2026-01-01';
/** Rows of another partition that a correct load must leave out of the target. */
const OTHER_DAY_ROWS = 5;

/**
 * What the plug-in cells' rows carry beyond integers, a day and texts (UnsafeVariant.shownBy): the
 * `at` column holds instants with their zone as ISO-8601 text (+05:30, -08:00, DST edges, Z, NULL:
 * cell-instants.ts), which a target must keep as given, so a connector that shifts zones in
 * transit changes them and row parity shows it.
 */
export const PLUGIN_SOURCE_DATA: readonly VariantData[] = ['zoned-instants'];

/** The table a plug-in cell loads, as its target part is told it. */
export const CELL_TABLE: CellTable = {
  name: TABLE,
  columns: COLUMNS.map((name) => ({ name, type: COLUMN_TYPES[name] })),
  naturalKey: ['id'],
  partition: { column: 'day', value: DAY },
};

/** The seeded rows, in COLUMNS order: `rows` rows in the loaded partition plus a few in another. */
function* sourceRows(options: CellWorkloadOptions): Generator<readonly CellScalar[]> {
  const random = seededRandom(deriveSeed(options.seed, 'source-rows'));
  for (let id = 1; id <= options.rows + OTHER_DAY_ROWS; id++) {
    const day = id <= options.rows ? DAY : '2026-01-02';
    const amount = randomInt(random, 1, 100_000);
    // The rich labels (NULL, '', NFC/NFD, emoji, RTL, quotes, 4 KiB) a value-changing target shows.
    const label = cellLabel(id, randomInt(random, 1, 999));
    // 64-bit integers beyond 2^53 (and NULL): a target that rounds numbers through a double shows.
    const big = cellBig(id, random);
    // Instants with their zone (and NULL): a target or connector that shifts zones shows.
    const at = cellInstant(id, random);
    yield [id, day, amount, label, big === null ? null : BigInt(big), at];
  }
}

/** Writes the seeded source into the cell folder, as the embedded engine keeps one. */
export function writeSource(host: EmbeddedHost, cellDir: string, options: CellWorkloadOptions): void {
  host.source.write(cellDir, CELL_TABLE, sourceRows(options));
}

/** Where a plug-in cell's workload names its route, source and target (plugin-route.ts fills them in). */
export interface WorkloadEnds {
  readonly route: string;
  readonly canonicalTargetIdentity: string;
  readonly source: string;
  readonly target: object;
}

export function workloadDocument(
  options: CellWorkloadOptions,
  schemaFingerprint: string,
  ends: WorkloadEnds,
) {
  return {
    identity: {
      release_id: 'cert-release-1',
      deployment_id: 'cert-deployment',
      dag_id: 'certify_dag',
      dag_run_logical_identity: `scheduled__${DAY}`,
      workload_id: 'events_load',
      mapped_partition_identity: `day=${DAY}`,
      canonical_interval: { start: `${DAY}T00:00:00.000Z`, end: '2026-01-02T00:00:00.000Z' },
      canonical_target_identity: ends.canonicalTargetIdentity,
    },
    intent: {
      pack_fingerprint: 'pack-v1',
      normalized_load_strategy: options.strategy,
      source_snapshot_or_partition_identity: `${TABLE}/day=${DAY}`,
      target_contract: `${TABLE}(${COLUMNS.join(',')})`,
      schema_fingerprint: schemaFingerprint,
    },
    route: ends.route,
    source: { url: ends.source, table: TABLE },
    target: ends.target,
    data: { columns: [...COLUMNS], natural_key: ['id'], partition: { column: 'day', value: DAY } },
    execution: { lease_ttl_ms: options.leaseTtlMs, state_dir: 'state' },
  };
}
