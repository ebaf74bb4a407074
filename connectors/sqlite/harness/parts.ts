import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { SQLITE_ENGINE } from '../engine.ts';
import { UNSAFE_SQLITE_VARIANTS } from '../sqlite-unsafe-variants.ts';
import { SqliteInspector } from './inspectors/sqlite-inspector.ts';
import { sqliteSourceRows } from './inspectors/sqlite-source-rows.ts';
import type { DatasetType } from '../../../harness/data/canonical-value.ts';
import type { Dataset, DatasetRow } from '../../../harness/data/dataset.ts';
import { CELL_TARGET_TABLE, cellParity } from '../../../harness/routes/cell-workload.ts';
import type {
  ConnectorParts,
  JournalPart,
  PartCell,
  SourcePart,
  TargetPart,
} from '../../../harness/routes/parts.ts';
import { maskedDigest } from '../../../harness/routes/state-fingerprint.ts';
import { sqliteDump } from './sqlite-dump.ts';
import { sqlitePluginHost } from './sqlite-plugin-host.ts';
import { openCellJournal, sqliteFenceOperations, sqliteJournalOperations } from './sqlite-loss.ts';
import { sealSqliteFile } from './sqlite-seal.ts';
import { sqliteJournalFile } from './sqlite-journal-file.ts';
import { readTargetTables } from './sqlite-power-loss.ts';

const FILES = { source: 'source.db', target: 'target.db', journal: 'journal.db' } as const;

/** SQLite's storage class per dataset type: integers as INTEGER (exact to 2^63), the rest as given. */
const SQLITE_TYPES: Readonly<Record<DatasetType, string>> = {
  integer: 'INTEGER',
  text: 'TEXT',
  date: 'TEXT',
  double: 'REAL',
  decimal: 'TEXT',
  timestamp: 'TEXT',
};

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** A canonical value as SQLite stores it: integers as BigInt, doubles as numbers, the rest as text. */
function bind(type: DatasetType, value: string | null): string | number | bigint | null {
  if (value === null) return null;
  if (type === 'integer') return BigInt(value);
  if (type === 'double') return Number(value);
  return value;
}

/**
 * Creates `table` (no unique key) if missing and inserts the rows in one transaction. `typed`: the
 * columns declare the dataset's types (a source as users write one); else none, as the connector
 * creates a target (no affinity converts what a worker writes: typed parity sees storage classes).
 */
function writeRows(
  file: string,
  table: string,
  dataset: Dataset,
  rows: Iterable<DatasetRow>,
  typed = true,
): void {
  const db = new DatabaseSync(file);
  try {
    db.exec('PRAGMA busy_timeout = 5000');
    const columns = dataset.columns
      .map((c) => (typed ? `${quote(c.name)} ${SQLITE_TYPES[c.type]}` : quote(c.name)))
      .join(', ');
    db.exec(`CREATE TABLE IF NOT EXISTS ${quote(table)} (${columns})`);
    const names = dataset.columns.map((c) => quote(c.name)).join(', ');
    const insert = db.prepare(
      `INSERT INTO ${quote(table)} (${names}) VALUES (${dataset.columns.map(() => '?').join(', ')})`,
    );
    db.exec('BEGIN IMMEDIATE');
    for (const row of rows) insert.run(...dataset.columns.map((c) => bind(c.type, row[c.name] ?? null)));
    db.exec('COMMIT');
  } finally {
    db.close();
  }
}

const dumpOf = (cell: PartCell, file: string) => async () => maskedDigest(sqliteDump(join(cell.dir, file)));

/** A SQLite source: `source.db` in the cell folder, the dataset in SQLite's own types. */
export const sqliteSource: SourcePart = {
  engine: 'sqlite',
  connectorVersion: SQLITE_ENGINE.source!.version,
  services: [],
  files: [FILES.source],
  dumpFile: sqliteDump,
  async prepare(cell) {
    const { dataset } = cell;
    const file = join(cell.dir, FILES.source);
    writeRows(file, dataset.table, dataset, dataset.source);
    const url = `sqlite:${FILES.source}`;
    return {
      workload: { url, table: dataset.table },
      env: {},
      rows: sqliteSourceRows({
        path: file,
        table: dataset.table,
        columns: dataset.columns.map((c) => c.name),
        partition: dataset.partition,
      }),
      addRows: async (rows) => writeRows(file, dataset.table, dataset, rows),
      seal: () => sealSqliteFile(cell.dir, FILES.source, url),
      fingerprint: dumpOf(cell, FILES.source),
      async [Symbol.asyncDispose]() {},
    };
  },
};

/**
 * A SQLite target: `target.db` in the cell folder, created untyped-affinity-free as the dataset
 * says, seeded with the rows it holds before the load, then audited (a trigger logs every insert).
 */
export const sqliteTarget: TargetPart = {
  engine: 'sqlite',
  capability: 'transactional-commit-marker',
  plainWrites: true,
  connectorVersion: SQLITE_ENGINE.target!.version,
  services: [],
  files: [FILES.target],
  dumpFile: sqliteDump,
  fileImage: readTargetTables,
  unsafeVariants: Object.keys(UNSAFE_SQLITE_VARIANTS),
  // No "move": SQLite has no search path to point a retry's fence lookup elsewhere.
  fenceLossModes: ['drop', 'rename'],
  async prepare(cell, source) {
    const { dataset, options } = cell;
    const file = join(cell.dir, FILES.target);
    writeRows(file, CELL_TARGET_TABLE, dataset, dataset.target, false);
    const inspector = new SqliteInspector({
      sourcePath: join(cell.dir, FILES.source),
      sourceTable: dataset.table,
      targetPath: file,
      targetTable: CELL_TARGET_TABLE,
      columns: dataset.columns.map((c) => c.name),
      naturalKey: dataset.naturalKey,
      partition: dataset.partition,
      source: source.rows,
      parity: cellParity(dataset, options),
    });
    await inspector.installAudit();
    const url = `sqlite:${FILES.target}`;
    return {
      workload: { url, table: CELL_TARGET_TABLE },
      env: {},
      inspector,
      fenceOps: sqliteFenceOperations(cell.dir),
      // The fence lives in target.db: sealing the file seals both.
      seal: () => sealSqliteFile(cell.dir, FILES.target, url),
      fingerprint: dumpOf(cell, FILES.target),
      async [Symbol.asyncDispose]() {
        await inspector.close();
      },
    };
  },
};

/** The embedded journal: `journal.db` in the cell folder (the runtime creates it). */
export const sqliteJournal: JournalPart = {
  kind: 'sqlite',
  services: [],
  files: [FILES.journal],
  dumpFile: sqliteDump,
  lossModes: ['wipe', 'delete', 'rollback', 'fork', 'wal-loss'],
  async prepare(cell) {
    const url = `sqlite://${join(cell.dir, FILES.journal)}`;
    return {
      url,
      env: {},
      ops: sqliteJournalOperations(cell.dir),
      file: sqliteJournalFile(join(cell.dir, FILES.journal)),
      open: () => openCellJournal(cell.dir, url),
      fingerprint: dumpOf(cell, FILES.journal),
      async [Symbol.asyncDispose]() {},
    };
  },
};

export const parts: ConnectorParts = {
  engine: 'sqlite',
  source: sqliteSource,
  target: sqliteTarget,
  journal: sqliteJournal,
  pluginHost: sqlitePluginHost(FILES, sqliteJournal.lossModes),
};
