import type pg from 'pg';
import { DponeError, ERROR_CODES } from '../../../../src/contracts/errors.ts';
import type { TargetFirstDifference, TargetSnapshot } from '../../../../harness/evidence/evidence-types.ts';
import type { CellScalar } from '../../../../harness/checkers/target-snapshot.ts';
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
import type { ParityOptions } from '../../../../harness/inspectors/parity-basis.ts';
import { comparableRow, expectedRows } from '../../../../harness/inspectors/parity-basis.ts';
import { firstDifference } from '../../../../harness/checkers/first-difference.ts';
import { withPostgresClient } from '../env/postgres-pool.ts';
import type { SourceRows } from '../../../../harness/inspectors/source-rows.ts';
import { eachSourceRow } from '../../../../harness/inspectors/source-rows.ts';

/** A direct connection of the harness's own (never a worker's, never through a test proxy). */
export interface InspectorConnection {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
  readonly database: string;
  /** Bound of each read (default 30 s); a 1,000,000-row partition's read needs more on a loaded machine. */
  readonly queryTimeoutMs?: number;
  /** A server shared by the run's cells, never killed: reads reuse kept connections (postgres-pool.ts). */
  readonly pooled?: boolean;
}

export interface PostgresInspectorOptions {
  /** A direct connection (never through a test proxy); the password stays in memory. */
  readonly connection: InspectorConnection;
  /** Schema holding source, target, fence and audit tables. */
  readonly schema: string;
  readonly targetTable: string;
  readonly sourceTable: string;
  readonly columns: readonly string[];
  /** Types of the target table the audit creates (same as the source's); default TEXT. */
  readonly columnTypes?: Readonly<Record<string, string>>;
  readonly naturalKey: readonly string[];
  readonly partition?: { readonly column: string; readonly value: string };
  /** Another engine's reader of the source partition (a composed route); default: `sourceTable` above. */
  readonly source?: SourceRows;
  /** Column types and the target's rows before the load (parity-basis.ts). */
  readonly parity?: ParityOptions;
}

export const PG_AUDIT_TABLE = '_harness_audit';

const q = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * The inspector's own fixed text forms (deliberately not the connector's list): source and target
 * values are both read as text under these, so equal text means equal values whatever the roles
 * set (shortest-exact floats, ISO dates, UTC instants).
 */
export const INSPECTOR_SETTINGS = [
  'DateStyle=ISO,YMD',
  'IntervalStyle=postgres',
  'extra_float_digits=3',
  'TimeZone=UTC',
  'bytea_output=hex',
]
  .map((setting) => `-c ${setting}`)
  .join(' ');

function unreadable(what: string, cause: unknown): DponeError {
  return new DponeError(
    ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
    `the harness could not read the PostgreSQL ${what}`,
    {},
    { cause },
  );
}

/** Rows fetched per round trip of a harness cursor: a batch is all a read holds at once. */
const CURSOR_BATCH = 5_000;

/**
 * Visits every row of `sql` through a server-side cursor, CURSOR_BATCH rows at a time, keeping
 * none; returns how many. Must run inside a transaction (the cursor lives until its end).
 */
export async function eachCursorRow(
  client: pg.ClientBase,
  sql: string,
  parameters: readonly unknown[],
  visit: (row: Record<string, CellScalar>) => void,
): Promise<number> {
  const cursor = '_harness_rows';
  await client.query(`DECLARE ${cursor} NO SCROLL CURSOR FOR ${sql}`, [...parameters]);
  let count = 0;
  for (;;) {
    const { rows } = await client.query(`FETCH FORWARD ${CURSOR_BATCH} FROM ${cursor}`);
    for (const row of rows as Record<string, CellScalar>[]) visit(row);
    count += rows.length;
    if (rows.length < CURSOR_BATCH) break;
  }
  await client.query(`CLOSE ${cursor}`);
  return count;
}

/**
 * Runs `body` on one short connection under INSPECTOR_SETTINGS, closed whatever happens; any
 * failure is ENVIRONMENT_UNAVAILABLE naming `what` was being read (the driver's error in `cause`).
 */
export async function withInspectorClient<T>(
  connection: InspectorConnection,
  what: string,
  body: (client: pg.ClientBase) => Promise<T>,
): Promise<T> {
  const { queryTimeoutMs = 30_000, pooled = false, ...endpoint } = connection;
  const config = {
    ...endpoint,
    connectionTimeoutMillis: 10_000,
    query_timeout: queryTimeoutMs,
    options: INSPECTOR_SETTINGS,
  };
  try {
    return await withPostgresClient(config, pooled, body);
  } catch (error) {
    throw unreadable(what, error);
  }
}

/**
 * The PostgreSQL route's inspector: its own connection per call (kept ones on the server the cells
 * share), straight to the server, never through a worker's proxy or the connector under test.
 * Audit: a row-level AFTER INSERT trigger on the target table logs `txid_current()` and the row's
 * natural key into `_harness_audit`, inside the inserting transaction (a rolled-back insert
 * leaves nothing). Mutations = distinct transaction ids that inserted — counted without the fence.
 */
export class PostgresInspector implements TargetInspector {
  readonly identity: string;
  readonly #options: PostgresInspectorOptions;

  constructor(options: PostgresInspectorOptions) {
    requireWorkloadShape('PostgreSQL', options);
    this.#options = options;
    this.identity = `postgres:${options.targetTable}`;
  }

  async installAudit(): Promise<void> {
    const { schema, targetTable, columns, columnTypes, naturalKey } = this.#options;
    const table = `${q(schema)}.${q(targetTable)}`;
    const audit = `${q(schema)}.${PG_AUDIT_TABLE}`;
    const keyJson = `json_build_array(${naturalKey.map((c) => `NEW.${q(c)}::text`).join(', ')})::text`;
    const typed = columns.map((c) => `${q(c)} ${columnTypes?.[c] ?? 'TEXT'}`).join(', ');
    await this.#with('target to install the audit', async (client) => {
      await client.query('BEGIN');
      // The source's column types, and deliberately no unique key: a replay shows as duplicates.
      await client.query(`CREATE TABLE IF NOT EXISTS ${table} (${typed})`);
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${audit} (seq BIGSERIAL PRIMARY KEY, txid BIGINT NOT NULL, key_json TEXT NOT NULL)`,
      );
      await client.query(
        `CREATE OR REPLACE FUNCTION ${q(schema)}._harness_audit_insert() RETURNS trigger LANGUAGE plpgsql AS $$ ` +
          `BEGIN INSERT INTO ${audit} (txid, key_json) VALUES (txid_current(), ${keyJson}); RETURN NULL; END $$`,
      );
      await client.query(`DROP TRIGGER IF EXISTS _harness_audit_insert ON ${table}`);
      await client.query(
        `CREATE TRIGGER _harness_audit_insert AFTER INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION ${q(schema)}._harness_audit_insert()`,
      );
      await client.query('COMMIT');
    });
  }

  /**
   * One pass over each table through cursors (issue 37 item 4): every target, audit and source row
   * is reduced to its digests as a batch arrives, so a 1,000,000-row partition is never held
   * whole. Only a cell without parity reads the rows again, to name the first difference.
   */
  async snapshot(options: SnapshotOptions = {}): Promise<TargetSnapshot> {
    const { schema, targetTable, sourceTable, columns, naturalKey, partition, parity = {} } = this.#options;
    const comparable = (raw: Record<string, CellScalar>) => comparableRow(raw, columns, parity.types);
    const target = new TargetSetDigest(columns, naturalKey);
    const mutations = new MutationRecorder('transaction');
    const expected = new RowSetDigest(columns);
    const visitSource = (row: Record<string, CellScalar>) => expected.add(comparable(row));
    let batchRows = this.#options.source ? await eachSourceRow(this.#options.source, visitSource) : 0;
    const list = columns.map((c) => `${q(c)}::text AS ${q(c)}`).join(', ');
    await this.#with('target and source', async (client) => {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      await eachCursorRow(client, `SELECT ${list} FROM ${q(schema)}.${q(targetTable)}`, [], (row) =>
        target.add(comparable(row)),
      );
      await eachCursorRow(
        client,
        `SELECT txid::text AS txid, key_json FROM ${q(schema)}.${PG_AUDIT_TABLE} ORDER BY seq`,
        [],
        // Mutations are told apart by transaction id here: the key text is not compared at all.
        (row) => mutations.add({ key: String(row.key_json), marker: `txid:${String(row.txid)}` }),
      );
      if (!this.#options.source) {
        const where = partition ? ` WHERE ${q(partition.column)} = $1` : '';
        batchRows = await eachCursorRow(
          client,
          `SELECT ${list} FROM ${q(schema)}.${q(sourceTable)}${where}`,
          partition ? [partition.value] : [],
          visitSource,
        );
      }
      await client.query('COMMIT');
    });
    return snapshotOfReading(
      {
        target,
        expected,
        parity,
        mutations,
        markerKind: 'transaction',
        batchRows,
        firstDifference: () => this.#firstDifference(),
      },
      options,
    );
  }

  /** Reads both tables whole, once more (a cell without parity only), for the first differing key. */
  async #firstDifference(): Promise<TargetFirstDifference | undefined> {
    const { schema, targetTable, sourceTable, columns, naturalKey, partition, parity = {} } = this.#options;
    const comparable = (raw: Record<string, CellScalar>) => comparableRow(raw, columns, parity.types);
    const other = this.#options.source ? await this.#options.source.read() : null;
    const list = columns.map((c) => `${q(c)}::text AS ${q(c)}`).join(', ');
    return this.#with('target and source', async (client) => {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      const target = await client.query(`SELECT ${list} FROM ${q(schema)}.${q(targetTable)}`);
      const source = other
        ? { rows: other }
        : partition
          ? await client.query(
              `SELECT ${list} FROM ${q(schema)}.${q(sourceTable)} WHERE ${q(partition.column)} = $1`,
              [partition.value],
            )
          : await client.query(`SELECT ${list} FROM ${q(schema)}.${q(sourceTable)}`);
      await client.query('COMMIT');
      const got = (target.rows as Record<string, CellScalar>[]).map(comparable);
      const expected = expectedRows((source.rows as Record<string, CellScalar>[]).map(comparable), parity);
      return firstDifference(got, expected, naturalKey, columns);
    });
  }

  /** The target's rows alone: the target_digest and row_count a snapshot would report. */
  async targetDigest(): Promise<TargetDigest> {
    const { schema, targetTable, columns, parity = {} } = this.#options;
    const list = columns.map((c) => `${q(c)}::text AS ${q(c)}`).join(', ');
    return this.#with('target', async (client) => {
      const digests = new RowSetDigest(columns);
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      await eachCursorRow(client, `SELECT ${list} FROM ${q(schema)}.${q(targetTable)}`, [], (row) =>
        digests.add(comparableRow(row, columns, parity.types)),
      );
      await client.query('COMMIT');
      const { digest, rows } = digests.finish();
      return { digest, rows };
    });
  }

  #with<T>(what: string, body: (client: pg.ClientBase) => Promise<T>): Promise<T> {
    return withInspectorClient(this.#options.connection, what, body);
  }

  async close(): Promise<void> {
    // Connections are per call, or kept by the run's pool of a shared server (closed with it).
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
