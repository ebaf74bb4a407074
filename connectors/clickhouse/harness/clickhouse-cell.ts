import { createHash } from 'node:crypto';
import { ClickHouseInspector } from './inspectors/clickhouse-inspector.ts';
import type { SourceRows } from '../../../harness/inspectors/source-rows.ts';
import type { ParityOptions } from '../../../harness/inspectors/parity-basis.ts';
import type { ClickHouseEndpoint } from './env/clickhouse-endpoint.ts';
import { clickhouseHttp } from './env/clickhouse-endpoint.ts';

/** Env var through which workers receive the ClickHouse password (never written to a file or a URL). */
export const CLICKHOUSE_PASSWORD_ENV = 'DPONE_CH_CELL_PASSWORD';

/** Client-side bound every worker request gets, so a black-holed proxy ends its calls quickly. */
export const CLICKHOUSE_WORKER_TIMEOUT = 'request_timeout_ms=4000';

export interface ClickHouseCellOptions {
  /** Straight to the server, as a user that may create databases (the harness's own requests). */
  readonly endpoint: ClickHouseEndpoint;
  /** Where workers reach the server (a Toxiproxy proxy in front of it); default: the server itself. */
  readonly worker?: { readonly host: string; readonly port: number };
  /** The user workers log in as; default: the endpoint's. */
  readonly workerUser?: { readonly user: string; readonly password: string };
  readonly targetTable?: string;
  readonly columns: readonly string[];
  readonly naturalKey: readonly string[];
  readonly partition: { readonly column: string; readonly value: string };
  /** The cell's source partition, read by its own reader (parity). */
  readonly source: SourceRows;
  /** Rows in the target before any worker starts (e.g. what a replace-partition must swap out), as text. */
  readonly seedTargetRows?: readonly Readonly<Record<string, string | null>>[];
  /** The cell's database name; default `c_<hash of the cell folder>`. */
  readonly database?: string;
  /** Column types and the rows before the load, for the inspector's parity (parity-basis.ts). */
  readonly parity?: ParityOptions;
}

/** One cell's ClickHouse side: its own database, an audited target table, and how workers reach it. */
export interface ClickHouseCellWorld {
  readonly database: string;
  /** The workload's `target:` block: URL without a password, table, and the password's env var. */
  readonly target: { readonly url: string; readonly table: string; readonly password_env?: string };
  /** Extra environment for workers (the password, when there is one). */
  readonly env: Readonly<Record<string, string>>;
  readonly inspector: ClickHouseInspector;
  drop(): Promise<void>;
}

const q = (name: string) => `\`${name.replaceAll('`', '\\`')}\``;
const s = (value: string | null) =>
  value === null ? 'NULL' : `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
/** A literal in the column's type (the text a String column takes as is; Int64, Decimal parsed exactly). */
const typed = (literal: string, type: string) =>
  literal === 'NULL' ? literal : `CAST(${literal} AS ${type})`;

/**
 * Builds a fresh ClickHouse world for one cell: database `c_<hash>` (the connector creates its fence
 * and staging tables there), the target table in the documented shape, the seeded rows, then the
 * inspector's audit (it checks the server logs parts and records the baseline block) before any
 * worker starts. A route composes this with its source's seeding and its journal.
 */
export async function buildClickHouseCellWorld(
  cellDir: string,
  options: ClickHouseCellOptions,
): Promise<ClickHouseCellWorld> {
  const tag = createHash('sha256')
    .update(`${cellDir}\u0000${Date.now()}\u0000${Math.random()}`)
    .digest('hex')
    .slice(0, 16);
  const database = options.database ?? `c_${tag}`;
  const targetTable = options.targetTable ?? 'events';
  const exec = (sql: string) => clickhouseHttp(options.endpoint, sql, 'prepare the cell');
  await exec(`CREATE DATABASE ${q(database)}`);
  const inspector = new ClickHouseInspector({
    endpoint: options.endpoint,
    database,
    targetTable,
    columns: options.columns,
    naturalKey: options.naturalKey,
    partition: options.partition,
    source: options.source,
    ...(options.parity ? { parity: options.parity } : {}),
  });
  await inspector.createTargetTable();
  const seeds = options.seedTargetRows ?? [];
  if (seeds.length > 0) {
    const columns = [...options.columns, '_dpone_op', '_dpone_epoch'];
    const tuples = seeds.map(
      (row) =>
        `(${[...options.columns.map((c) => typed(s(row[c] ?? null), inspector.columnType(c))), "''", '0'].join(', ')})`,
    );
    await exec(
      `INSERT INTO ${q(database)}.${q(targetTable)} (${columns.map(q).join(', ')}) VALUES ${tuples.join(', ')}`,
    );
  }
  await inspector.installAudit();
  const worker = options.worker ?? { host: options.endpoint.host, port: options.endpoint.httpPort };
  const login = options.workerUser ?? { user: options.endpoint.user, password: options.endpoint.password };
  const url = `clickhouse://${encodeURIComponent(login.user)}@${worker.host}:${worker.port}/${database}?${CLICKHOUSE_WORKER_TIMEOUT}`;
  const withPassword = login.password !== '';
  return {
    database,
    target: { url, table: targetTable, ...(withPassword ? { password_env: CLICKHOUSE_PASSWORD_ENV } : {}) },
    env: withPassword ? { [CLICKHOUSE_PASSWORD_ENV]: login.password } : {},
    inspector,
    drop: async () => {
      await exec(`DROP DATABASE IF EXISTS ${q(database)}`).catch(() => undefined);
    },
  };
}
