import { dirname, isAbsolute, resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { DponeError, ERROR_CODES, invalidInput } from '../../../../src/contracts/errors.ts';
import type { Workload } from '../../../../src/contracts/workload.ts';
import type { TargetFirstDifference, TargetSnapshot } from '../../../../harness/evidence/evidence-types.ts';
import type { AuditedInsert, CellScalar } from '../../../../harness/checkers/target-snapshot.ts';
import type {
  SnapshotOptions,
  TargetDigest,
  TargetInspector,
} from '../../../../harness/inspectors/target-inspector.ts';
import { MutationRecorder } from '../../../../harness/checkers/target-snapshot.ts';
import { RowSetDigest, TargetSetDigest } from '../../../../harness/checkers/digest-stream.ts';
import {
  requireWorkloadShape,
  snapshotOfReading,
} from '../../../../harness/inspectors/workload-inspector.ts';
import type { DatasetType } from '../../../../harness/data/canonical-value.ts';
import type { ParityOptions } from '../../../../harness/inspectors/parity-basis.ts';
import { comparableRow, expectedRows } from '../../../../harness/inspectors/parity-basis.ts';
import { firstDifference } from '../../../../harness/checkers/first-difference.ts';
import type { SourceRows } from '../../../../harness/inspectors/source-rows.ts';
import { eachSourceRow } from '../../../../harness/inspectors/source-rows.ts';

export interface SqliteInspectorOptions {
  readonly targetPath: string;
  readonly targetTable: string;
  readonly sourcePath: string;
  readonly sourceTable: string;
  /** The workload's columns: a row's digest covers exactly these. */
  readonly columns: readonly string[];
  readonly naturalKey: readonly string[];
  /** The source partition the target must equal; absent: the whole source table. */
  readonly partition?: { readonly column: string; readonly value: string };
  /** Another engine's reader of the source partition (a composed route); default: the SQLite file above. */
  readonly source?: SourceRows;
  /** Column types and the target's rows before the load (parity-basis.ts). */
  readonly parity?: ParityOptions;
}

export const AUDIT_TABLE = '_harness_audit';

/**
 * Typed parity in SQLite's own representation (issue 29): a value compares with its storage class,
 * so a REAL 20.0 that lands as INTEGER 20, or an INTEGER that lands as TEXT, differs from the source
 * although its canonical text is the same. The source and the rows the target held before hold each
 * dataset type in this class (../parts.ts writes them so), and the cells' target
 * table declares no column type, exactly as the connector creates it (no affinity converts a value).
 */
const STORAGE_CLASS: Readonly<Record<DatasetType, string>> = {
  integer: 'integer',
  double: 'real',
  text: 'text',
  date: 'text',
  decimal: 'text',
  timestamp: 'text',
};
const classAlias = (i: number) => `_harness_class_${i}`;

/**
 * A target row's comparable values, each non-null value whose storage class is not its dataset
 * type's suffixed by the class it has (`20::integer` where a REAL was due): rows stored right
 * compare (and digest) exactly as before, and a first difference names the class that is wrong.
 */
function withClasses(
  row: Record<string, CellScalar>,
  columns: readonly string[],
  classOf: (column: string, i: number) => string | undefined,
): Record<string, CellScalar> {
  const out: Record<string, CellScalar> = { ...row };
  columns.forEach((column, i) => {
    const value = out[column];
    const kind = classOf(column, i);
    if (value !== null && value !== undefined && kind !== undefined)
      out[column] = `${String(value)}::${kind}`;
  });
  return out;
}
const AUDIT_TRIGGER = '_harness_audit_insert';
const BUSY_TIMEOUT_MS = 5_000;

function quote(name: string): string {
  return name
    .split('.')
    .map((part) => `"${part.replaceAll('"', '""')}"`)
    .join('.');
}

function unreadable(what: string, cause: unknown): DponeError {
  return new DponeError(
    ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
    `the harness could not read the SQLite ${what}`,
    {},
    { cause },
  );
}

/**
 * The embedded route's inspector. It opens the target and source files with its own node:sqlite
 * connections (never through the connector or its fence), one short connection per call so it
 * holds no lock while workers run.
 *
 * Audit: an AFTER INSERT trigger on the target table logs one row per inserted row (its natural key
 * as JSON) into `_harness_audit`. The trigger runs inside the inserting transaction, so a rolled-back
 * mutation leaves no audit row. SQLite has no transaction id, but it admits one writer at a time, so
 * each mutation's audit rows are contiguous; a new mutation starts where a natural key repeats
 * (`serialized-runs`). The target table has no unique key, so a replay also shows as duplicates.
 */
export class SqliteInspector implements TargetInspector {
  readonly identity: string;
  readonly #options: SqliteInspectorOptions;

  constructor(options: SqliteInspectorOptions) {
    requireWorkloadShape('SQLite', options);
    this.#options = options;
    this.identity = `sqlite:${options.targetTable}`;
  }

  async installAudit(): Promise<void> {
    const { targetTable, columns, naturalKey } = this.#options;
    // Keys as text: exact for integers beyond 2^53 (the audit's keys only group inserts into runs).
    const keyJson = `json_array(${naturalKey.map((column) => `CAST(NEW.${quote(column)} AS TEXT)`).join(', ')})`;
    const db = this.#open(this.#options.targetPath, 'target');
    try {
      db.exec('PRAGMA journal_mode = WAL');
      // Same shape the connector creates: untyped columns and no unique key.
      db.exec(`CREATE TABLE IF NOT EXISTS ${quote(targetTable)} (${columns.map(quote).join(', ')})`);
      db.exec(
        `CREATE TABLE IF NOT EXISTS ${AUDIT_TABLE} (` +
          'seq INTEGER PRIMARY KEY AUTOINCREMENT, key_json TEXT NOT NULL, target_rowid INTEGER)',
      );
      db.exec(
        `CREATE TRIGGER IF NOT EXISTS ${AUDIT_TRIGGER} AFTER INSERT ON ${quote(targetTable)} BEGIN ` +
          `INSERT INTO ${AUDIT_TABLE} (key_json, target_rowid) VALUES (${keyJson}, NEW.rowid); END`,
      );
    } catch (error) {
      throw unreadable('target to install the audit', error);
    } finally {
      db.close();
    }
  }

  /**
   * One pass over each table (issue 37 item 4): every target row, audit row and source row is
   * reduced to its digests as the cursor yields it, so a 1,000,000-row partition is never held
   * whole. Only a cell without parity reads the rows again, to name the first difference.
   */
  async snapshot(options: SnapshotOptions = {}): Promise<TargetSnapshot> {
    const { columns, naturalKey, parity = {} } = this.#options;
    const comparable = (row: Record<string, CellScalar>) => comparableRow(row, columns, parity.types);
    const target = new TargetSetDigest(columns, naturalKey);
    const mutations = new MutationRecorder('serialized-runs');
    this.#eachTargetRow(
      (row) => target.add(this.#typed(row, comparable(row))),
      (insert) => mutations.add(insert),
    );
    const expected = new RowSetDigest(columns);
    const visit = (row: Record<string, CellScalar>) => expected.add(comparable(row));
    const batchRows = this.#options.source
      ? await eachSourceRow(this.#options.source, visit)
      : this.#eachSourceRow(visit);
    return snapshotOfReading(
      {
        target,
        expected,
        parity,
        mutations,
        markerKind: 'serialized-runs',
        batchRows,
        firstDifference: () => this.#firstDifference(),
      },
      options,
    );
  }

  /** Reads both tables whole, once more (a cell without parity only), for the first differing key. */
  async #firstDifference(): Promise<TargetFirstDifference | undefined> {
    const { columns, naturalKey, parity = {} } = this.#options;
    const comparable = (row: Record<string, CellScalar>) => comparableRow(row, columns, parity.types);
    const got: Record<string, CellScalar>[] = [];
    this.#eachTargetRow(
      (row) => got.push(this.#typed(row, comparable(row))),
      () => undefined,
    );
    const source = this.#options.source ? await this.#options.source.read() : this.#readSource();
    const expected = expectedRows(source.map(comparable), parity);
    return firstDifference(got, expected, naturalKey, columns);
  }

  /** Row by row (no row array kept): the target_digest and row_count a snapshot would report. */
  async targetDigest(): Promise<TargetDigest> {
    const { columns, parity = {} } = this.#options;
    const db = this.#open(this.#options.targetPath, 'target');
    try {
      const select = this.#selectTarget(db);
      const digests = new RowSetDigest(columns);
      for (const row of select.iterate() as Iterable<Record<string, CellScalar>>)
        digests.add(this.#typed(row, comparableRow(row, columns, parity.types)));
      const { digest, rows } = digests.finish();
      return { digest, rows };
    } catch (error) {
      throw unreadable('target', error);
    } finally {
      db.close();
    }
  }

  /** A target row's comparable values with the storage classes its read carried (typed parity only). */
  #typed(raw: Record<string, CellScalar>, row: Record<string, CellScalar>): Record<string, CellScalar> {
    const types = this.#options.parity?.types;
    if (!types) return row;
    const { columns } = this.#options;
    return withClasses(row, columns, (column, i) => {
      const type = types[column];
      const actual = raw[classAlias(i)] as string | undefined;
      return type === undefined || actual === STORAGE_CLASS[type] ? undefined : actual;
    });
  }

  #selectTarget(db: DatabaseSync): ReturnType<DatabaseSync['prepare']> {
    const { targetTable, columns } = this.#options;
    const classes = this.#options.parity?.types
      ? columns.map((c, i) => `, typeof(${quote(c)}) AS ${classAlias(i)}`).join('')
      : '';
    const select = db.prepare(`SELECT ${columns.map(quote).join(', ')}${classes} FROM ${quote(targetTable)}`);
    // Typed parity reads integers exactly (beyond 2^53); untyped keeps the driver's numbers.
    if (this.#options.parity?.types) select.setReadBigInts(true);
    return select;
  }

  /** Target rows, then audit rows, in one read transaction; neither kept. */
  #eachTargetRow(
    visitRow: (row: Record<string, CellScalar>) => void,
    visitInsert: (insert: AuditedInsert) => void,
  ): void {
    const db = this.#open(this.#options.targetPath, 'target');
    try {
      db.exec('BEGIN');
      for (const row of this.#selectTarget(db).iterate()) visitRow(row as Record<string, CellScalar>);
      const audit = db.prepare(`SELECT key_json FROM ${AUDIT_TABLE} ORDER BY seq`);
      // The audit's key text only groups inserts into runs (equal texts, equal keys): no digest needed.
      for (const row of audit.iterate())
        visitInsert({ key: (row as { key_json: string }).key_json, marker: null });
      db.exec('COMMIT');
    } catch (error) {
      throw unreadable('target', error);
    } finally {
      db.close();
    }
  }

  /** The source partition row by row (the cell's own SQLite source); returns how many. */
  #eachSourceRow(visit: (row: Record<string, CellScalar>) => void): number {
    const { sourceTable, columns, partition } = this.#options;
    const db = this.#open(this.#options.sourcePath, 'source');
    try {
      const list = columns.map(quote).join(', ');
      const where = partition ? ` WHERE CAST(${quote(partition.column)} AS TEXT) = ?` : '';
      let count = 0;
      const select = db.prepare(`SELECT ${list} FROM ${quote(sourceTable)}${where}`);
      for (const row of partition ? select.iterate(partition.value) : select.iterate()) {
        visit(row as Record<string, CellScalar>);
        count += 1;
      }
      return count;
    } catch (error) {
      throw unreadable('source', error);
    } finally {
      db.close();
    }
  }

  #readSource(): Record<string, CellScalar>[] {
    const { sourceTable, columns, partition } = this.#options;
    const db = this.#open(this.#options.sourcePath, 'source');
    try {
      const list = columns.map(quote).join(', ');
      if (!partition)
        return db.prepare(`SELECT ${list} FROM ${quote(sourceTable)}`).all() as Record<string, CellScalar>[];
      const sql = `SELECT ${list} FROM ${quote(sourceTable)} WHERE CAST(${quote(partition.column)} AS TEXT) = ?`;
      return db.prepare(sql).all(partition.value) as Record<string, CellScalar>[];
    } catch (error) {
      throw unreadable('source', error);
    } finally {
      db.close();
    }
  }

  #open(path: string, what: string): DatabaseSync {
    try {
      const db = new DatabaseSync(path);
      db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
      return db;
    } catch (error) {
      throw unreadable(what, error);
    }
  }

  async close(): Promise<void> {
    // Connections are per call; nothing stays open.
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

/** `sqlite:///abs/path` or `sqlite:relative/path` (relative to `base`) to a file path. */
export function sqliteFilePath(url: string, base: string): string {
  if (!url.startsWith('sqlite:')) throw invalidInput('not a sqlite: URL', { field: 'url' });
  let path = url.slice('sqlite:'.length);
  if (path.startsWith('//')) {
    if (!path.startsWith('///'))
      throw invalidInput('a sqlite URL must be sqlite:///absolute/path', { field: 'url' });
    path = path.slice(2);
  }
  path = decodeURIComponent(path.split(/[?#]/, 1)[0] ?? '');
  return isAbsolute(path) ? path : resolve(base, path);
}

/** An inspector for a SQLite workload: its source partition, target table and natural key. */
export function sqliteInspectorForWorkload(workload: Workload): SqliteInspector {
  const base = dirname(workload.file);
  return new SqliteInspector({
    targetPath: sqliteFilePath(workload.target.url, base),
    targetTable: workload.target.table,
    sourcePath: sqliteFilePath(workload.source.url, base),
    sourceTable: workload.source.table,
    columns: workload.data.columns,
    naturalKey: workload.data.natural_key,
    partition: workload.data.partition,
  });
}
