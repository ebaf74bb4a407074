import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { promisify } from 'node:util';
import pg from 'pg';
import type { WorkerJob } from './bulk-load-shape.ts';
import { BULK_COLUMNS, BULK_DAY } from './bulk-load-shape.ts';
import { clientConfig } from './postgres-overhead.ts';
import { median, round } from './stats.ts';

const run = promisify(execFile);
const WORKER = resolve(import.meta.dirname, 'bulk-load-worker.ts');

/**
 * Bulk loads: one protocol operation (its own worker process) against the database's own copy of
 * the same rows (the floor, measured in the same run): `INSERT … SELECT` in the sqlite3 CLI,
 * `psql \copy` out of the source piped into `psql \copy` in. Wall times are medians; `worker_rss_mb`
 * is the worker's peak RSS (the largest of its runs).
 */
export interface BulkLoadRow {
  readonly database: string;
  readonly rows: number;
  readonly floor_ms: number;
  readonly protocol_ms: number;
  readonly ratio: number;
  /** CPU of the floor's client processes and of the worker: on a loaded machine wall follows CPU share. */
  readonly floor_cpu_ms: number;
  readonly protocol_cpu_ms: number;
  readonly cpu_ratio: number | null;
  readonly worker_rss_mb: number;
  /** Node flags the worker ran with ('' = defaults). */
  readonly worker_flags: string;
  /**
   * The bare copy (WorkerJob.bare: same source connector and bulk path, one plain transaction, no
   * protocol; on SQLite the engine copy, sqlite-copy.ts) and its ratio to the floor: what the load
   * costs before the protocol adds anything. `protocol_ms / bare_ms` is then the protocol's own share. Absent where not measured.
   */
  readonly bare_ms?: number;
  readonly bare_ratio?: number;
}

export interface Timed {
  readonly ms: number;
  readonly cpu_ms: number;
}

/**
 * Wall and CPU time of a command from GNU time (the floor's own process tree, start-up included;
 * a database server's CPU is not in it).
 */
export async function timed(command: string[], env?: NodeJS.ProcessEnv): Promise<Timed> {
  const { stderr } = await run('/usr/bin/time', ['-f', 'DPONE_TIME=%e %U %S', ...command], {
    env: { ...process.env, ...env },
    maxBuffer: 16 * 2 ** 20,
  });
  const found = /DPONE_TIME=([\d.]+) ([\d.]+) ([\d.]+)/.exec(stderr);
  if (found === null) throw new Error('GNU time printed no times');
  return { ms: Number(found[1]) * 1000, cpu_ms: (Number(found[2]) + Number(found[3])) * 1000 };
}

export interface WorkerRun {
  readonly ms: number;
  readonly cpu_ms: number;
  readonly rss_mb: number;
  readonly rows: number;
  readonly status: string;
}

export async function worker(job: WorkerJob, expected: number, flags: readonly string[]): Promise<WorkerRun> {
  const { stdout } = await run(process.execPath, [...flags, WORKER, JSON.stringify(job)], {
    env: process.env,
    maxBuffer: 16 * 2 ** 20,
  });
  const result = JSON.parse(stdout.trim().split('\n').at(-1)!) as WorkerRun;
  // A fresh operation each run: an `already-complete` answer would time nothing.
  if (result.status !== 'committed' || result.rows !== expected)
    throw new Error(
      `the worker ended ${result.status} with ${result.rows} rows, not committed with ${expected}`,
    );
  return result;
}

const GENERATE = (n: number) =>
  `WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < ${n}) ` +
  `SELECT i, '${BULK_DAY}', i * 7 % 100000, 'item-' || (i % 999) FROM g`;

/** `rows` rows of the bench day in table `src`, plus one row of another day (both sides must select). */
export function seedSqliteSource(file: string, rows: number): void {
  const seed = new DatabaseSync(file);
  seed.exec('CREATE TABLE src (id INTEGER, day TEXT, amount INTEGER, label TEXT)');
  seed.exec(`INSERT INTO src ${GENERATE(rows)}`);
  seed.exec(`INSERT INTO src VALUES (0, '2026-11-02', 0, 'other')`);
  seed.close();
}

async function sqliteSize(rows: number, repeats: number, flags: readonly string[]): Promise<BulkLoadRow> {
  const dir = await mkdtemp(join(tmpdir(), 'dpone-bench-bulk-'));
  try {
    seedSqliteSource(join(dir, 'source.db'), rows);
    const floor: Timed[] = [];
    const runs: WorkerRun[] = [];
    const bare: WorkerRun[] = [];
    for (let i = 0; i < repeats; i++) {
      const file = join(dir, `floor-${i}.db`);
      // The target's own settings (WAL, synchronous FULL), one transaction.
      const sql =
        `PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; ` +
        `CREATE TABLE events (${BULK_COLUMNS.join(', ')}); ATTACH '${join(dir, 'source.db')}' AS s; ` +
        `BEGIN; INSERT INTO events SELECT ${BULK_COLUMNS.join(', ')} FROM s.src ` +
        `WHERE CAST(day AS TEXT) = '${BULK_DAY}'; COMMIT;`;
      floor.push(await timed(['sqlite3', file, sql]));
      runs.push(await worker({ database: 'sqlite', dir, table: `events_${i}` }, rows, flags));
      bare.push(await worker({ database: 'sqlite', dir, table: `bare_${i}`, bare: true }, rows, flags));
      await rm(file, { force: true });
    }
    return { ...summarize('sqlite', rows, floor, runs, flags), ...bareFigures(floor, bare) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function postgresSize(
  url: string,
  password: string,
  rows: number,
  repeats: number,
  flags: readonly string[],
): Promise<BulkLoadRow> {
  const admin = new pg.Client(clientConfig(url, password));
  await admin.connect();
  const dir = await mkdtemp(join(tmpdir(), 'dpone-bench-bulk-pg-'));
  const parsed = new URL(url);
  const psql = ['psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-h', parsed.hostname, '-p', parsed.port];
  const psqlEnv = {
    PGUSER: decodeURIComponent(parsed.username),
    PGDATABASE: 'postgres',
    PGPASSWORD: password,
  };
  try {
    await admin.query('DROP TABLE IF EXISTS bulk_src');
    await admin.query('CREATE TABLE bulk_src (id bigint, day text, amount bigint, label text)');
    await admin.query(
      `INSERT INTO bulk_src SELECT g, $2, g * 7 % 100000, 'item-' || (g % 999) FROM generate_series(1, $1) g`,
      [rows, BULK_DAY],
    );
    await admin.query(`INSERT INTO bulk_src VALUES (0, '2026-11-02', 0, 'other')`);
    await admin.query('VACUUM ANALYZE bulk_src');
    const floor: Timed[] = [];
    const runs: WorkerRun[] = [];
    const bare: WorkerRun[] = [];
    // The table names the operation (and the journal outlives the size): one per flag set too.
    const target = `bulk_t_${rows}${flags.length > 0 ? '_flags' : ''}`;
    for (let i = 0; i < repeats; i++) {
      const table = `bulk_floor_${rows}_${i}`;
      await admin.query(`CREATE TABLE ${table} (id bigint, day text, amount bigint, label text)`);
      const out = `\\copy (SELECT ${BULK_COLUMNS.join(', ')} FROM bulk_src WHERE day = '${BULK_DAY}') TO STDOUT`;
      const pipeline = `${psql.join(' ')} -c "${out}" | ${psql.join(' ')} -c "\\copy ${table} FROM STDIN"`;
      floor.push(await timed(['sh', '-c', pipeline], psqlEnv));
      runs.push(await worker({ database: 'postgres', dir, table: `${target}_${i}`, url }, rows, flags));
      bare.push(
        await worker(
          { database: 'postgres', dir, table: `${target}_bare_${i}`, url, bare: true },
          rows,
          flags,
        ),
      );
      await admin.query(`DROP TABLE ${target}_bare_${i}`);
      await admin.query(`DROP TABLE ${table}`);
      await admin.query(`DROP TABLE ${target}_${i}`);
    }
    return { ...summarize('postgres', rows, floor, runs, flags), ...bareFigures(floor, bare) };
  } finally {
    await admin.end();
    await rm(dir, { recursive: true, force: true });
  }
}

/** The bare copy's median wall time and its ratio to the floor's. */
function bareFigures(
  floor: readonly Timed[],
  bare: readonly WorkerRun[],
): Pick<BulkLoadRow, 'bare_ms' | 'bare_ratio'> {
  const ms = median(bare.map((run) => run.ms));
  return { bare_ms: round(ms), bare_ratio: round(ms / median(floor.map((f) => f.ms))) };
}

export function summarize(
  database: string,
  rows: number,
  floor: Timed[],
  runs: WorkerRun[],
  flags: readonly string[],
): BulkLoadRow {
  const protocol = median(runs.map((r) => r.ms));
  const protocolCpu = median(runs.map((r) => r.cpu_ms));
  const floorMs = median(floor.map((f) => f.ms));
  const floorCpu = median(floor.map((f) => f.cpu_ms));
  return {
    database,
    rows,
    floor_ms: round(floorMs),
    protocol_ms: round(protocol),
    ratio: round(protocol / floorMs),
    floor_cpu_ms: round(floorCpu),
    protocol_cpu_ms: round(protocolCpu),
    cpu_ratio: floorCpu > 0 ? round(protocolCpu / floorCpu) : null,
    worker_rss_mb: round(Math.max(...runs.map((r) => r.rss_mb)), 1),
    worker_flags: flags.join(' '),
  };
}

/** Each size on SQLite, then on PostgreSQL when a cluster is given; `repeats(rows)` runs per size. */
export async function bulkLoad(options: {
  readonly sizes: readonly number[];
  readonly repeats: (rows: number) => number;
  readonly postgres?: { readonly url: string; readonly password: string };
  /** PostgreSQL's sizes, when they differ. */
  readonly pgSizes?: readonly number[];
  /** Node flags for the worker, e.g. a smaller young generation. */
  readonly workerFlags?: readonly string[];
}): Promise<BulkLoadRow[]> {
  const out: BulkLoadRow[] = [];
  const flags = options.workerFlags ?? [];
  for (const rows of options.sizes) out.push(await sqliteSize(rows, options.repeats(rows), flags));
  const cluster = options.postgres;
  if (cluster)
    for (const rows of options.pgSizes ?? options.sizes)
      out.push(await postgresSize(cluster.url, cluster.password, rows, options.repeats(rows), flags));
  return out;
}
