import { DponeError, ERROR_CODES } from '../../../../src/contracts/errors.ts';
import type { DatasetType } from '../../../../harness/data/canonical-value.ts';
import type { TargetFirstDifference, TargetSnapshot } from '../../../../harness/evidence/evidence-types.ts';
import type { ClickHouseEndpoint } from '../env/clickhouse-endpoint.ts';
import { clickhouseEachRow, clickhouseHttp, clickhouseRows } from '../env/clickhouse-endpoint.ts';
import type { PartRecord } from './clickhouse-landings.ts';
import { landings, parsePartName } from './clickhouse-landings.ts';
import type { SourceRows } from '../../../../harness/inspectors/source-rows.ts';
import { eachSourceRow } from '../../../../harness/inspectors/source-rows.ts';
import type { ParityOptions } from '../../../../harness/inspectors/parity-basis.ts';
import { comparableRow, expectedRows } from '../../../../harness/inspectors/parity-basis.ts';
import { firstDifference } from '../../../../harness/checkers/first-difference.ts';
import type { CellScalar } from '../../../../harness/checkers/target-snapshot.ts';
import type {
  SnapshotOptions,
  TargetDigest,
  TargetInspector,
} from '../../../../harness/inspectors/target-inspector.ts';
import { RowSetDigest, TargetSetDigest } from '../../../../harness/checkers/digest-stream.ts';
import {
  requireWorkloadShape,
  snapshotOfReading,
} from '../../../../harness/inspectors/workload-inspector.ts';

export interface ClickHouseInspectorOptions {
  /** Straight to the server (never through a test proxy), as a user that may create tables. */
  readonly endpoint: ClickHouseEndpoint;
  readonly database: string;
  readonly targetTable: string;
  readonly columns: readonly string[];
  readonly naturalKey: readonly string[];
  /** The loaded partition: the target table is PARTITION BY its column. */
  readonly partition: { readonly column: string; readonly value: string };
  /** The source partition, read by its own reader, for row parity. */
  readonly source: SourceRows;
  /** How long installAudit waits for its probe insert to show in system.part_log (default 15 s). */
  readonly probeWaitMs?: number;
  /** Column types and the target's rows before the load (parity-basis.ts); default: text as stored. */
  readonly parity?: ParityOptions;
}

/** Dataset types stored in a ClickHouse type of their own (the rest are String: see columnType). */
const CLICKHOUSE_TYPES: Partial<Record<DatasetType, string>> = {
  integer: 'Int64',
  decimal: 'Decimal(18, 6)',
};

const BASELINE_TABLE = '_harness_baseline';
const PROBE_TABLE = '_harness_probe';
const PROBE_WAIT_MS = 15_000;
const MUTATION_WAIT_MS = 20_000;
const NEW_PART = "toString(event_type) IN ('NEW_PART', 'NewPart')";

const q = (name: string) => `\`${name.replaceAll('\\', '\\\\').replaceAll('`', '\\`')}\``;
const s = (value: string) => `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;

/** A value as the text ClickHouse stores in a String column (how the connector carries it). */
function asText(value: CellScalar | undefined): string | null {
  if (value === null || value === undefined) return null;
  return typeof value === 'string' ? value : String(value);
}

/**
 * The ClickHouse target's inspector. It counts mutations from what the SERVER records about the
 * target table's parts (system.part_log and system.parts, see clickhouse-landings.ts) — never from
 * the fence log or the `_dpone_*` columns the connector writes — and reads the rows itself for
 * duplicates by natural key and parity with the source. Every call opens its own HTTP request.
 */
export class ClickHouseInspector implements TargetInspector {
  readonly identity: string;
  readonly #options: ClickHouseInspectorOptions;

  constructor(options: ClickHouseInspectorOptions) {
    requireWorkloadShape('ClickHouse', options);
    this.#options = options;
    this.identity = `clickhouse:${options.database}.${options.targetTable}`;
  }

  /**
   * Creates the target table when missing (the documented shape: String columns, no unique key,
   * PARTITION BY the partition column, the generation columns), proves the server logs parts (a
   * probe insert must appear in system.part_log), and records the baseline block number: landings
   * at or below it were there before the workers. Idempotent: the first baseline stays.
   */
  async installAudit(): Promise<void> {
    const { database, targetTable } = this.#options;
    await this.createTargetTable();
    await this.#proveLogging();
    await this.#exec(
      `CREATE TABLE IF NOT EXISTS ${q(database)}.${BASELINE_TABLE} (block Int64) ENGINE = Log`,
    );
    const [existing] = await this.#rows<{ n: string }>(
      `SELECT count() AS n FROM ${q(database)}.${BASELINE_TABLE}`,
    );
    if (Number(existing?.n) > 0) return;
    const [max] = await this.#rows<{ b: string | number }>(
      `SELECT max(max_block_number) AS b FROM system.parts WHERE database = ${s(database)} AND table = ${s(targetTable)}`,
    );
    await this.#exec(`INSERT INTO ${q(database)}.${BASELINE_TABLE} VALUES (${Number(max?.b ?? 0)})`);
  }

  /**
   * The ClickHouse type of `column`: String (the documented shape), except that a typed dataset's
   * integers are Int64 and its decimals Decimal(18, 6), so a value the connector carries through a
   * float or a JS number lands changed (a String column would keep whatever text came). Nullable
   * unless the column is the natural key or the partition column.
   */
  columnType(column: string): string {
    const { naturalKey, partition, parity } = this.#options;
    const type = parity?.types?.[column];
    const base = type === undefined ? 'String' : (CLICKHOUSE_TYPES[type] ?? 'String');
    return naturalKey.includes(column) || column === partition.column ? base : `Nullable(${base})`;
  }

  /** Creates the target table in the documented shape when it is missing (cells seed it before the audit). */
  async createTargetTable(): Promise<void> {
    const { columns, naturalKey, partition } = this.#options;
    const list = columns.map((c) => `${q(c)} ${this.columnType(c)}`);
    await this.#exec(
      `CREATE TABLE IF NOT EXISTS ${this.#table} (${list.join(', ')}, _dpone_op String, _dpone_epoch UInt64) ` +
        `ENGINE = MergeTree PARTITION BY ${q(partition.column)} ORDER BY (${naturalKey.map(q).join(', ')})`,
    );
  }

  async snapshot(options: SnapshotOptions = {}): Promise<TargetSnapshot> {
    const { database, targetTable, columns, naturalKey } = this.#options;
    await this.#awaitMutations();
    await this.#exec('SYSTEM FLUSH LOGS');
    const where = `database = ${s(database)} AND table = ${s(targetTable)}`;
    const [baseline] = await this.#rows<{ b: string | number }>(
      `SELECT max(block) AS b FROM ${q(database)}.${BASELINE_TABLE}`,
    );
    const logged = (
      await this.#rows<{ part_name: string; rows: string | number }>(
        `SELECT part_name, rows FROM system.part_log WHERE ${where} AND ${NEW_PART}`,
      )
    ).map((r) => parsePartName(r.part_name, Number(r.rows)));
    const parts = (
      await this.#rows<{ name: string; rows: string | number; active: number }>(
        `SELECT name, rows, active FROM system.parts WHERE ${where}`,
      )
    ).map((r) => {
      const part = parsePartName(r.name, Number(r.rows));
      return part && { ...part, active: Number(r.active) === 1 };
    });
    const known = (list: (PartRecord | null)[]) => list.filter((p): p is PartRecord => p !== null);
    const records = landings(known(logged), known(parts), Number(baseline?.b ?? 0));
    // One pass over each side (issue 37 item 4): rows become digests as they arrive, never held whole.
    const text = this.#comparable();
    const target = new TargetSetDigest(columns, naturalKey);
    await this.#eachTargetRow((row) => target.add(row));
    const expected = new RowSetDigest(columns);
    const batchRows = await eachSourceRow(this.#options.source, (row) => expected.add(text(row)));
    return snapshotOfReading(
      {
        target,
        expected,
        parity: this.#options.parity ?? {},
        mutations: { records, inserts: records.reduce((sum, r) => sum + r.rows, 0) },
        markerKind: 'server-part',
        batchRows,
        firstDifference: () => this.#firstDifference(),
      },
      options,
    );
  }

  /** Reads both sides whole, once more (a cell without parity only), for the first differing key. */
  async #firstDifference(): Promise<TargetFirstDifference | undefined> {
    const { columns, naturalKey } = this.#options;
    const target: Record<string, CellScalar>[] = [];
    await this.#eachTargetRow((row) => target.push(row));
    const batch = (await this.#options.source.read()).map(this.#comparable());
    const source = expectedRows(batch, this.#options.parity ?? {});
    return firstDifference(target, source, naturalKey, columns);
  }

  /** The target's rows alone (once its mutations are done): what a snapshot's target_digest covers. */
  async targetDigest(): Promise<TargetDigest> {
    await this.#awaitMutations();
    const digests = new RowSetDigest(this.#options.columns);
    await this.#eachTargetRow((row) => digests.add(row));
    const { digest, rows } = digests.finish();
    return { digest, rows };
  }

  /**
   * Typed: canonical values (the source's reader and this one agree exactly on equal values);
   * untyped: the text a String column stores.
   */
  #comparable(): (row: Record<string, CellScalar>) => Record<string, CellScalar> {
    const { columns } = this.#options;
    const types = this.#options.parity?.types;
    return (row) =>
      types
        ? comparableRow(row, columns, types)
        : (Object.fromEntries(columns.map((c) => [c, asText(row[c])])) as Record<string, CellScalar>);
  }

  /** Every target row, comparable, as the server sends it; returns how many. */
  async #eachTargetRow(visit: (row: Record<string, CellScalar>) => void): Promise<number> {
    const { columns } = this.#options;
    const comparable = this.#comparable();
    return clickhouseEachRow<Record<string, CellScalar>>(
      this.#options.endpoint,
      `SELECT ${columns.map((c) => `toString(${q(c)}) AS ${q(c)}`).join(', ')} FROM ${this.#table}`,
      'inspect the target',
      (row) => visit(comparable(row)),
    );
  }

  async close(): Promise<void> {
    // Requests are per call; nothing stays open.
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  get #table(): string {
    return `${q(this.#options.database)}.${q(this.#options.targetTable)}`;
  }

  /**
   * A probe insert must show up in system.part_log. 18.16's SYSTEM FLUSH LOGS does not reliably
   * flush the part log (its own timer does, every 100 ms on the harness's server), so this waits
   * for it, 15 s by default (a loaded machine can delay that timer by seconds).
   */
  async #proveLogging(): Promise<void> {
    const { database } = this.#options;
    const probe = `${q(database)}.${PROBE_TABLE}`;
    await this.#exec(`CREATE TABLE IF NOT EXISTS ${probe} (x UInt8) ENGINE = MergeTree ORDER BY x`);
    await this.#exec(`INSERT INTO ${probe} VALUES (1)`);
    const deadline = Date.now() + (this.#options.probeWaitMs ?? PROBE_WAIT_MS);
    for (;;) {
      await this.#exec('SYSTEM FLUSH LOGS');
      const logged = await this.#rows<{ n: string }>(
        `SELECT count() AS n FROM system.part_log WHERE database = ${s(database)} AND table = ${s(PROBE_TABLE)} AND ${NEW_PART}`,
      ).catch(() => [{ n: '0' }]);
      if (Number(logged[0]?.n) > 0) return;
      if (Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new DponeError(
      ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
      'the ClickHouse server does not record parts in system.part_log (configure <part_log>), so the harness cannot count mutations',
    );
  }

  /**
   * Waits (bounded) until the server has applied every stored mutation of the target table: after
   * a restart, parts a replace had outdated come back until the stored delete runs again, and
   * the durable state is what remains once it has. Past the bound the snapshot shows what is there.
   */
  async #awaitMutations(): Promise<void> {
    const { database, targetTable } = this.#options;
    const deadline = Date.now() + MUTATION_WAIT_MS;
    while (Date.now() < deadline) {
      const [pending] = await this.#rows<{ n: string }>(
        `SELECT count() AS n FROM system.mutations WHERE database = ${s(database)} AND table = ${s(targetTable)} AND is_done = 0`,
      ).catch(() => [{ n: '0' }]);
      if (Number(pending?.n ?? 0) === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  #exec(sql: string): Promise<string> {
    return clickhouseHttp(this.#options.endpoint, sql, 'inspect the target');
  }

  #rows<T>(sql: string): Promise<T[]> {
    return clickhouseRows<T>(this.#options.endpoint, sql, 'inspect the target');
  }
}
