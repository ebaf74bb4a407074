// One protocol operation (journal, lease, fence, streamed load, completion) in its own process, so
// its peak RSS is the worker's alone. Spawned by bulk-load.ts; prints one JSON line:
// { ms, cpu_ms, rss_mb }. Arguments: one JSON object (see WorkerJob).
import { join } from 'node:path';
import pg from 'pg';
import { copyRows } from '../connectors/postgres/postgres-copy.ts';
import { openSqlite } from '../connectors/sqlite/sqlite-connection.ts';
import { ensureTargetTable, insertRows } from '../connectors/sqlite/sqlite-rows.ts';
import { copyRows as engineCopy, copyableOrigin, detachSource } from '../connectors/sqlite/sqlite-copy.ts';
import { clientConfig } from './postgres-overhead.ts';
import { ClickHouseTarget } from '../connectors/clickhouse/clickhouse-target.ts';
import { PostgresSource } from '../connectors/postgres/postgres-source.ts';
import { PostgresTarget } from '../connectors/postgres/postgres-target.ts';
import { SqliteSource } from '../connectors/sqlite/sqlite-source.ts';
import { SqliteTarget } from '../connectors/sqlite/sqlite-target.ts';
import { PostgresJournal } from '../connectors/postgres/journal/postgres-journal.ts';
import { SqliteJournal } from '../connectors/sqlite/journal/sqlite-journal.ts';
import { FileStateSink } from '../src/adapters/state/file-state-sink.ts';
import { RecoveryAwareExecutor } from '../src/core/executor.ts';
import { SYSTEM_CLOCK } from '../src/ports/clock.ts';
import type { SourceConnector, TargetConnector } from '../src/ports/connector.ts';
import { NO_FAULTS } from '../src/ports/fault-points.ts';
import type { TargetCommitJournalPort } from '../src/ports/journal.ts';
import type { WorkerJob } from './bulk-load-shape.ts';
import { BULK_COLUMNS, BULK_DAY, BULK_TYPES } from './bulk-load-shape.ts';
import { boundYoungGeneration } from '../src/cli/young-generation.ts';

async function open(job: WorkerJob): Promise<[SourceConnector, TargetConnector, TargetCommitJournalPort]> {
  if (job.database === 'sqlite') {
    return [
      await SqliteSource.open(join(job.dir, 'source.db'), 'src', BULK_COLUMNS),
      await SqliteTarget.open({
        path: join(job.dir, 'target.db'),
        table: job.table,
        columns: BULK_COLUMNS,
        naturalKey: ['id'],
      }),
      await SqliteJournal.open(join(job.dir, `journal-${job.table}.db`)),
    ];
  }
  const url = job.url!;
  if (job.database === 'clickhouse') {
    // The spec's live route shape: rows read from an embedded source, landed by staging and swap.
    return [
      await SqliteSource.open(join(job.dir, 'source.db'), 'src', BULK_COLUMNS),
      await ClickHouseTarget.open({
        url,
        password: process.env.DPONE_BENCH_CH_PASSWORD,
        table: job.table,
        columns: BULK_COLUMNS,
        naturalKey: ['id'],
        partitionColumn: 'day',
      }),
      await SqliteJournal.open(join(job.dir, `journal-${job.table}.db`)),
    ];
  }
  const password = process.env.DPONE_BENCH_PG_PASSWORD;
  return [
    await PostgresSource.open({ url, password, table: 'bulk_src', columns: BULK_COLUMNS }),
    await PostgresTarget.open({
      url,
      password,
      table: job.table,
      columns: BULK_COLUMNS,
      create: { columns: BULK_TYPES },
      naturalKey: ['id'],
    }),
    await PostgresJournal.open(url, password),
  ];
}

/** The bare copy (WorkerJob.bare): source connector to the target's bulk path, one transaction. */
async function bareCopy(job: WorkerJob): Promise<number> {
  const request = { partitionColumn: 'day', partitionValue: BULK_DAY };
  if (job.database === 'sqlite') {
    await using source = await SqliteSource.open(join(job.dir, 'source.db'), 'src', BULK_COLUMNS);
    const db = openSqlite(join(job.dir, 'target.db'));
    try {
      ensureTargetTable(db, job.table, BULK_COLUMNS);
      db.exec('BEGIN IMMEDIATE');
      // The target's bulk path: the engine copy for a SQLite source file (sqlite-copy.ts).
      const rows = await source.read(request);
      const origin = copyableOrigin(db, rows);
      const written =
        origin === null
          ? await insertRows(db, job.table, rows)
          : await engineCopy(db, job.table, rows.columns, origin);
      db.exec('COMMIT');
      detachSource(db);
      await rows.close();
      return written;
    } finally {
      db.close();
    }
  }
  if (job.database !== 'postgres') throw new Error(`no bare copy for ${job.database}`);
  const password = process.env.DPONE_BENCH_PG_PASSWORD;
  await using source = await PostgresSource.open({
    url: job.url!,
    password,
    table: 'bulk_src',
    columns: BULK_COLUMNS,
  });
  const client = new pg.Client(clientConfig(job.url!, password));
  await client.connect();
  try {
    await client.query(`CREATE TABLE ${job.table} (id bigint, day text, amount bigint, label text)`);
    await client.query('BEGIN');
    const written = await copyRows(client, job.table, await source.read(request), {
      stallMs: 60_000,
      abandon: () => void client.end(),
    });
    await client.query('COMMIT');
    return written;
  } finally {
    await client.end();
  }
}

const job = JSON.parse(process.argv[2]!) as WorkerJob;
// As `dpone run` does (src/cli/commands/run.ts).
boundYoungGeneration();
/** Times `work` (wall and this process's CPU) and prints the one JSON line bulk-load.ts reads. */
async function report(work: () => Promise<{ status: string; rows: number }>, after = async () => {}) {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const { status, rows } = await work();
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  await after();
  console.log(
    JSON.stringify({
      ms,
      cpu_ms: (used.user + used.system) / 1000,
      rss_mb: process.resourceUsage().maxRSS / 1024,
      status,
      rows,
    }),
  );
}

if (job.bare) {
  await report(async () => ({ status: 'committed', rows: await bareCopy(job) }));
} else {
  // One protocol operation (journal, lease, fence, streamed load, completion); opening and closing
  // the connections are outside the timing.
  const [source, target, journal] = await open(job);
  const executor = new RecoveryAwareExecutor({
    journal,
    source,
    target,
    state: new FileStateSink(join(job.dir, `state-${job.table}`)),
    faults: NO_FAULTS,
    clock: SYSTEM_CLOCK,
  });
  await report(
    async () => {
      const outcome = await executor.execute({
        operationId: `sha256:${Buffer.from(job.table).toString('hex').padEnd(64, '0').slice(0, 64)}`,
        intentDigest: `sha256:${'1'.repeat(64)}`,
        metadata: { workload_id: 'bench', target_identity: `${job.database}:${job.table}` },
        strategy: 'append',
        partitionColumn: 'day',
        partitionValue: BULK_DAY,
        holder: 'bench',
        leaseTtlMs: 600_000,
      });
      return { status: outcome.status, rows: outcome.rowsWritten };
    },
    async () => {
      await Promise.all([journal.close(), target.close(), source.close()]);
    },
  );
}
