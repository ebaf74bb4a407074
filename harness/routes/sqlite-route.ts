import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { stringify } from 'yaml';
import { ROUTE_CONNECTOR_VERSIONS } from '../../src/cli/certifications.ts';
import { unsafeVariantsFor } from '../../src/ports/unsafe-variants.ts';
import { SqliteInspector } from '../checkers/sqlite-inspector.ts';
import { cellLabel } from '../data/cell-text.ts';
import { deriveSeed, randomInt, seededRandom } from '../plan/seeded-random.ts';
import { openCellJournal, sqliteFenceOperations, sqliteJournalOperations } from './sqlite-loss.ts';
import { copyDurableFiles, isEmbeddedDurable } from './cell-state-copy.ts';
import { sealSqliteStorage } from './sqlite-seal.ts';
import { sqliteStateFingerprint } from './sqlite-state-fingerprint.ts';
import type { CellFixture, CellWorkloadOptions, Route } from './route.ts';

export const TABLE = 'events';
export const COLUMNS = ['id', 'day', 'amount', 'label'] as const;
/** The columns' kinds, as a plug-in route's target part is told them. */
export const COLUMN_TYPES = { id: 'integer', day: 'text', amount: 'integer', label: 'text' } as const;
export const DAY = '2026-01-01';
/** Rows of another partition that a correct load must leave out of the target. */
const OTHER_DAY_ROWS = 5;

/** Writes the seeded source: `rows` rows in the loaded partition plus a few in another. */
export function writeSource(file: string, options: CellWorkloadOptions): void {
  const random = seededRandom(deriveSeed(options.seed, 'source-rows'));
  const db = new DatabaseSync(file);
  try {
    db.exec(`CREATE TABLE ${TABLE} (id INTEGER, day TEXT, amount INTEGER, label TEXT)`);
    const insert = db.prepare(`INSERT INTO ${TABLE} (id, day, amount, label) VALUES (?, ?, ?, ?)`);
    db.exec('BEGIN');
    for (let id = 1; id <= options.rows + OTHER_DAY_ROWS; id++) {
      const day = id <= options.rows ? DAY : '2026-01-02';
      const amount = randomInt(random, 1, 100_000);
      insert.run(id, day, amount, cellLabel(id, randomInt(random, 1, 999)));
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
    route: 'sqlite',
    source: { url: 'sqlite:source.db', table: TABLE },
    target: { url: 'sqlite:target.db', table: TABLE, ...(options.fence ? { fence: options.fence } : {}) },
    data: { columns: [...COLUMNS], natural_key: ['id'], partition: { column: 'day', value: DAY } },
    execution: { lease_ttl_ms: options.leaseTtlMs, state_dir: 'state' },
  };
}

/**
 * The embedded route: SQLite source, SQLite target, SQLite journal, all files in the cell folder
 * (the workload names them relative to its own folder).
 * The target table is created by the inspector's audit (no unique key) before any worker starts.
 */
export const route: Route = {
  id: 'sqlite',
  defaultProvider: 'embedded',
  // The target's flaws (the connector's variants), the executor's (io-before-intent), and those
  // of its capability-none configuration (target.fence: none; replay-unknown).
  unsafeVariants: [
    ...new Set([...unsafeVariantsFor('transactional-commit-marker'), ...unsafeVariantsFor('none')]),
  ].sort(),
  connectorVersion: ROUTE_CONNECTOR_VERSIONS.sqlite ?? 'unknown',
  // No "move": SQLite has no search path to point a retry's fence lookup elsewhere.
  lossModes: {
    journal: ['wipe', 'delete', 'rollback', 'fork', 'wal-loss'],
    fence: ['drop', 'rename'],
  },
  copyCellState: (fromDir: string, toDir: string) => copyDurableFiles(fromDir, toDir, isEmbeddedDurable),
  durableFingerprint: sqliteStateFingerprint,
  async prepareCell(cellDir: string, options: CellWorkloadOptions): Promise<CellFixture> {
    writeSource(join(cellDir, 'source.db'), options);
    const workloadFile = join(cellDir, 'workload.yaml');
    const conflictingWorkloadFile = join(cellDir, 'workload-conflicting.yaml');
    await writeFile(workloadFile, stringify(workloadDocument(options, 'schema-v1')));
    await writeFile(conflictingWorkloadFile, stringify(workloadDocument(options, 'schema-v2')));
    const inspector = new SqliteInspector({
      sourcePath: join(cellDir, 'source.db'),
      sourceTable: TABLE,
      targetPath: join(cellDir, 'target.db'),
      targetTable: TABLE,
      columns: [...COLUMNS],
      naturalKey: ['id'],
      partition: { column: 'day', value: DAY },
    });
    await inspector.installAudit();
    const journalUrl = `sqlite://${join(cellDir, 'journal.db')}`;
    return {
      workloadFile,
      conflictingWorkloadFile,
      journalUrl,
      env: {},
      inspector,
      openJournal: () => openCellJournal(cellDir, journalUrl),
      journalOps: sqliteJournalOperations(cellDir),
      fenceOps: sqliteFenceOperations(cellDir),
      sealStorage: (file) => sealSqliteStorage(cellDir, file),
      async [Symbol.asyncDispose]() {
        await inspector.close();
      },
    };
  },
};
