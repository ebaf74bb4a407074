import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { PostgresSource } from '../connectors/postgres/postgres-source.ts';
import { PostgresTarget } from '../connectors/postgres/postgres-target.ts';
import { copyRows } from '../connectors/postgres/postgres-copy.ts';
import { PostgresJournal } from '../connectors/postgres/journal/postgres-journal.ts';
import { FileStateSink } from '../src/adapters/state/file-state-sink.ts';
import type { OverheadRow } from './protocol-overhead.ts';
import { overheadRow, timedOperation } from './protocol-overhead.ts';

const COLUMNS = ['id', 'day', 'payload'];

/** The PostgreSQL half of the overhead benchmark: executor operation vs one bare transaction. */
export async function postgresOverhead(
  url: string,
  password: string,
  options: { repeats: number; sizes: readonly number[] },
): Promise<OverheadRow[]> {
  const admin = new pg.Client(clientConfig(url, password));
  await admin.connect();
  const stateDir = await mkdtemp(join(tmpdir(), 'dpone-bench-pg-'));
  const out: OverheadRow[] = [];
  try {
    for (const rows of options.sizes) {
      await admin.query('DROP TABLE IF EXISTS bench_src');
      await admin.query('CREATE TABLE bench_src (id text, day text, payload text)');
      await admin.query(
        `INSERT INTO bench_src SELECT 'k' || g, '2026-11-01', 'payload-' || g || repeat('x', 40) FROM generate_series(1, $1) g`,
        [rows],
      );
      const calls = new Map<string, number>();
      const bare: number[] = [];
      const protocol: number[] = [];
      for (let i = 0; i <= options.repeats; i++) {
        const b = await bareOnce(url, password, `bench_bare_${rows}_${i}`);
        const p = await protocolOnce(
          url,
          password,
          `bench_t_${rows}_${i}`,
          join(stateDir, `${rows}-${i}`),
          i === 0 ? calls : undefined,
        );
        if (i > 0) {
          bare.push(b);
          protocol.push(p);
        }
      }
      out.push(overheadRow({ database: 'postgres', rows, bareRoundTrips: 4 }, bare, protocol, calls));
    }
  } finally {
    await admin.end();
    await rm(stateDir, { recursive: true, force: true });
  }
  return out;
}

/** Explicit fields: pg lets a connection string's absent password override `password`. */
export function clientConfig(url: string, password: string | undefined): pg.ClientConfig {
  const parsed = new URL(url);
  return {
    host: parsed.hostname,
    port: Number(parsed.port || 5432),
    user: decodeURIComponent(parsed.username),
    database: parsed.pathname.slice(1),
    password,
  };
}

async function bareOnce(url: string, password: string, table: string): Promise<number> {
  const source = await PostgresSource.open({ url, password, table: 'bench_src', columns: COLUMNS });
  const client = new pg.Client(clientConfig(url, password));
  await client.connect();
  await client.query(`CREATE TABLE ${table} (id text, day text, payload text)`);
  const started = performance.now();
  const rows = await source.read({ partitionColumn: 'day', partitionValue: '2026-11-01' });
  await client.query('BEGIN');
  await copyRows(client, table, rows, { stallMs: 10_000, abandon: () => void client.end() });
  await client.query('COMMIT');
  const ms = performance.now() - started;
  await client.end();
  await source.close();
  return ms;
}

async function protocolOnce(
  url: string,
  password: string,
  table: string,
  stateDir: string,
  calls?: Map<string, number>,
): Promise<number> {
  const source = await PostgresSource.open({ url, password, table: 'bench_src', columns: COLUMNS });
  const target = await PostgresTarget.open({
    url,
    password,
    table,
    columns: COLUMNS,
    // The same shape as the bare baseline's table (opt-in creation: the table is new each repeat).
    create: { columns: Object.fromEntries(COLUMNS.map((column) => [column, 'text'])) },
    naturalKey: ['id'],
  });
  const journal = await PostgresJournal.open(url, password);
  return timedOperation(
    { journal, source, target, state: new FileStateSink(stateDir) },
    {
      operationId: `sha256:${Buffer.from(table).toString('hex').padEnd(64, '0').slice(0, 64)}`,
      targetIdentity: `postgres:${table}`,
    },
    calls,
  );
}
