import { DatabaseSync } from 'node:sqlite';
import { cellBig } from '../data/cell-numbers.ts';
import { cellInstant } from '../data/cell-instants.ts';
import { cellLabel } from '../data/cell-text.ts';
import { deriveSeed, randomInt, seededRandom } from '../data/seeded-random.ts';
import type { CellWorkloadOptions } from './route.ts';
import type { VariantData } from '../../src/ports/unsafe-variants.ts';

/*
 * The seeded SQLite source and workload of a plug-in route's cells. A plug-in's target part is
 * told its table in the published CellTable form (dpone-cert/testing: integer and text columns,
 * no rows before the load), which cannot carry the composed routes' dataset (harness/data: dates,
 * doubles, target rows a replace must remove), so plug-in cells keep this fixed table and their
 * own path (plugin-route.ts: this source, the plug-in's target part, the SQLite cell journal)
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

/** Writes the seeded source: `rows` rows in the loaded partition plus a few in another. */
/**
 * What the plug-in cells' rows carry beyond integers, a day and texts (UnsafeVariant.shownBy): the
 * `at` column holds instants with their zone as ISO-8601 text (+05:30, -08:00, DST edges, Z, NULL:
 * cell-instants.ts), which a target must keep as given, so a connector that shifts zones in
 * transit changes them and row parity shows it.
 */
export const PLUGIN_SOURCE_DATA: readonly VariantData[] = ['zoned-instants'];

export function writeSource(file: string, options: CellWorkloadOptions): void {
  const random = seededRandom(deriveSeed(options.seed, 'source-rows'));
  const db = new DatabaseSync(file);
  try {
    db.exec(`CREATE TABLE ${TABLE} (id INTEGER, day TEXT, amount INTEGER, label TEXT, big INTEGER, at TEXT)`);
    const insert = db.prepare(
      `INSERT INTO ${TABLE} (id, day, amount, label, big, at) VALUES (?, ?, ?, ?, ?, ?)`,
    );
    db.exec('BEGIN');
    for (let id = 1; id <= options.rows + OTHER_DAY_ROWS; id++) {
      const day = id <= options.rows ? DAY : '2026-01-02';
      const amount = randomInt(random, 1, 100_000);
      // The rich labels (NULL, '', NFC/NFD, emoji, RTL, quotes, 4 KiB) a value-changing target shows.
      const label = cellLabel(id, randomInt(random, 1, 999));
      // 64-bit integers beyond 2^53 (and NULL): a target that rounds numbers through a double shows.
      const big = cellBig(id, random);
      // Instants with their zone (and NULL): a target or connector that shifts zones shows.
      const at = cellInstant(id, random);
      insert.run(id, day, amount, label, big === null ? null : BigInt(big), at);
    }
    db.exec('COMMIT');
  } finally {
    db.close();
  }
}

export function workloadDocument(options: CellWorkloadOptions, schemaFingerprint: string) {
  return {
    identity: {
      release_id: 'cert-release-1',
      deployment_id: 'cert-deployment',
      dag_id: 'certify_dag',
      dag_run_logical_identity: `scheduled__${DAY}`,
      workload_id: 'events_load',
      mapped_partition_identity: `day=${DAY}`,
      canonical_interval: { start: `${DAY}T00:00:00.000Z`, end: '2026-01-02T00:00:00.000Z' },
      canonical_target_identity: `sqlite:${TABLE}`,
    },
    intent: {
      pack_fingerprint: 'pack-v1',
      normalized_load_strategy: options.strategy,
      source_snapshot_or_partition_identity: `${TABLE}/day=${DAY}`,
      target_contract: `${TABLE}(${COLUMNS.join(',')})`,
      schema_fingerprint: schemaFingerprint,
    },
    route: 'sqlite-to-sqlite',
    source: { url: 'sqlite:source.db', table: TABLE },
    target: { url: 'sqlite:target.db', table: TABLE },
    data: { columns: [...COLUMNS], natural_key: ['id'], partition: { column: 'day', value: DAY } },
    execution: { lease_ttl_ms: options.leaseTtlMs, state_dir: 'state' },
  };
}
