import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ClickHouseServer,
  CLICKHOUSE_USERS,
  findClickHouseServer,
} from '../connectors/clickhouse/harness/env/clickhouse-server.ts';
import type { BulkLoadRow, Timed, WorkerRun } from './bulk-load.ts';
import { seedSqliteSource, summarize, timed, worker } from './bulk-load.ts';
import { BULK_COLUMNS, BULK_DAY } from './bulk-load-shape.ts';

const TABLE_COLUMNS = 'id Int64, day String, amount Int64, label String';

/**
 * The SQLite → ClickHouse route's bulk load: one protocol operation (staging table, streamed
 * TabSeparated insert, partition swap, fence) against ClickHouse's own client loading the same
 * rows from the same source (`sqlite3` tab output piped into `clickhouse-client … FORMAT
 * TabSeparated`), measured in the same run on a throw-away local server. Without a server binary
 * the entry is UNVERIFIED with the reason, never invented.
 */
export async function clickhouseBulkLoad(options: {
  readonly sizes: readonly number[];
  readonly repeats: (rows: number) => number;
}): Promise<{ rows: BulkLoadRow[]; unverified?: string }> {
  const binary = findClickHouseServer();
  if (binary === null)
    return { rows: [], unverified: 'no clickhouse-server binary (apt-get install clickhouse-server)' };
  await using server = await ClickHouseServer.start({ binary });
  // The workers read the writer's password from here (never from an argument or a URL).
  process.env.DPONE_BENCH_CH_PASSWORD = server.password;
  const out: BulkLoadRow[] = [];
  for (const rows of options.sizes) out.push(await oneSize(server, rows, options.repeats(rows)));
  return { rows: out };
}

async function oneSize(server: ClickHouseServer, rows: number, repeats: number): Promise<BulkLoadRow> {
  const dir = await mkdtemp(join(tmpdir(), 'dpone-bench-bulk-ch-'));
  const db = `bench_${rows}`;
  try {
    const source = join(dir, 'source.db');
    seedSqliteSource(source, rows);
    await server.exec(`CREATE DATABASE IF NOT EXISTS ${db}`);
    const select = `SELECT ${BULK_COLUMNS.join(', ')} FROM src WHERE day = '${BULK_DAY}'`;
    const floor: Timed[] = [];
    const runs: WorkerRun[] = [];
    for (let i = 0; i < repeats; i++) {
      const floorTable = `${db}.floor_${i}`;
      const table = `events_${i}`;
      const engine = 'ENGINE = MergeTree PARTITION BY day ORDER BY id';
      await server.exec(`CREATE TABLE ${floorTable} (${TABLE_COLUMNS}) ${engine}`);
      await server.exec(
        `CREATE TABLE ${db}.${table} (${TABLE_COLUMNS}, _dpone_op String, _dpone_epoch UInt64) ${engine}`,
      );
      const client = `clickhouse-client --host 127.0.0.1 --port ${server.tcpPort} --query "INSERT INTO ${floorTable} FORMAT TabSeparated"`;
      floor.push(
        await timed([
          'sh',
          '-c',
          `sqlite3 -batch -noheader -cmd '.mode tabs' ${source} "${select}" | ${client}`,
        ]),
      );
      runs.push(
        await worker(
          { database: 'clickhouse', dir, table, url: server.url(db, CLICKHOUSE_USERS.writer) },
          rows,
          [],
        ),
      );
      const landed = Number((await server.exec(`SELECT count() FROM ${floorTable}`)).trim());
      if (landed !== rows) throw new Error(`the floor loaded ${landed} rows, not ${rows}`);
      await server.exec(`DROP TABLE ${floorTable}`);
    }
    return summarize('clickhouse', rows, floor, runs, []);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
