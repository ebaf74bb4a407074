import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { SqliteSource } from '../connectors/sqlite/sqlite-source.ts';
import { SqliteTarget } from '../connectors/sqlite/sqlite-target.ts';
import { insertRows } from '../connectors/sqlite/sqlite-rows.ts';
import { openSqlite } from '../connectors/sqlite/sqlite-connection.ts';
import { SqliteJournal } from '../connectors/sqlite/journal/sqlite-journal.ts';
import { FileStateSink } from '../src/adapters/state/file-state-sink.ts';
import { RecoveryAwareExecutor } from '../src/core/executor.ts';
import type { ExecutorDeps } from '../src/core/executor-types.ts';
import { NO_FAULTS } from '../src/ports/fault-points.ts';
import { SYSTEM_CLOCK } from '../src/ports/clock.ts';
import { countCalls, journalCommits } from './call-counter.ts';
import { median, round } from './stats.ts';

/**
 * Protocol overhead on the embedded route: one full executor operation (intent, lease, fence, CAS
 * transitions, mutation, fence query, completion) versus the same partition read and written bare
 * in one plain transaction with no journal and no fence, on the same kind of files, in this run.
 */
export interface OverheadRow {
  readonly database: string;
  readonly rows: number;
  readonly bare_ms: number;
  readonly protocol_ms: number;
  readonly ratio: number;
  /** Calls that cross to a database, per operation: bare = source read + one write transaction. */
  readonly bare_round_trips: number;
  readonly protocol_round_trips: number;
  /** Durable journal commits per operation (the spec's transitions plus the lease). */
  readonly journal_commits: number;
  readonly protocol_calls: Readonly<Record<string, number>>;
}

/**
 * One row: the median timings of the repeats, and what the counted calls of one operation say
 * (round trips: every call but a close).
 */
export function overheadRow(
  row: { readonly database: string; readonly rows: number; readonly bareRoundTrips: number },
  bare: readonly number[],
  protocol: readonly number[],
  calls: ReadonlyMap<string, number>,
): OverheadRow {
  const trips = [...calls].filter(([k]) => !k.endsWith('.close')).reduce((s, [, v]) => s + v, 0);
  return {
    database: row.database,
    rows: row.rows,
    bare_ms: round(median(bare)),
    protocol_ms: round(median(protocol)),
    ratio: round(median(protocol) / median(bare)),
    bare_round_trips: row.bareRoundTrips,
    protocol_round_trips: trips,
    journal_commits: journalCommits(calls),
    protocol_calls: Object.fromEntries([...calls].sort()),
  };
}

/**
 * One executor operation (the bench partition, appended) on these ends, timed from its start to
 * its end; their calls are counted into `calls` when given. Closes the journal and both ends.
 */
export async function timedOperation(
  ends: Pick<ExecutorDeps, 'journal' | 'source' | 'target' | 'state'>,
  operation: { readonly operationId: string; readonly targetIdentity: string },
  calls?: Map<string, number>,
): Promise<number> {
  const { journal, source, target } = ends;
  const executor = new RecoveryAwareExecutor({
    journal: calls ? countCalls(journal, 'journal', calls) : journal,
    source: calls ? countCalls(source, 'source', calls) : source,
    target: calls ? countCalls(target, 'target', calls) : target,
    state: ends.state,
    faults: NO_FAULTS,
    clock: SYSTEM_CLOCK,
  });
  const started = performance.now();
  await executor.execute({
    operationId: operation.operationId,
    intentDigest: `sha256:${'1'.repeat(64)}`,
    metadata: { workload_id: 'bench', target_identity: operation.targetIdentity },
    strategy: 'append',
    partitionColumn: 'day',
    partitionValue: '2026-11-01',
    holder: 'bench',
    leaseTtlMs: 30_000,
  });
  const ms = performance.now() - started;
  await Promise.all([journal.close(), target.close(), source.close()]);
  return ms;
}

const COLUMNS = ['id', 'day', 'payload'];

function seedSource(path: string, rows: number): void {
  const db = new DatabaseSync(path);
  db.exec('CREATE TABLE src (id TEXT, day TEXT, payload TEXT)');
  const insert = db.prepare('INSERT INTO src VALUES (?, ?, ?)');
  db.exec('BEGIN');
  for (let i = 0; i < rows; i++) insert.run(`k${i}`, '2026-11-01', `payload-${i}-${'x'.repeat(40)}`);
  db.exec('COMMIT');
  db.close();
}

async function bareOnce(dir: string, n: number): Promise<number> {
  const source = await SqliteSource.open(join(dir, 'source.db'), 'src', COLUMNS);
  const db = openSqlite(join(dir, `bare-${n}.db`));
  db.exec('CREATE TABLE IF NOT EXISTS events (id TEXT, day TEXT, payload TEXT)');
  const started = performance.now();
  const rows = await source.read({ partitionColumn: 'day', partitionValue: '2026-11-01' });
  db.exec('BEGIN IMMEDIATE');
  await insertRows(db, 'events', rows);
  db.exec('COMMIT');
  const ms = performance.now() - started;
  db.close();
  await source.close();
  return ms;
}

async function protocolOnce(dir: string, n: number, calls?: Map<string, number>): Promise<number> {
  const source = await SqliteSource.open(join(dir, 'source.db'), 'src', COLUMNS);
  const target = await SqliteTarget.open({
    path: join(dir, `target-${n}.db`),
    table: 'events',
    columns: COLUMNS,
    naturalKey: ['id'],
  });
  const journal = await SqliteJournal.open(join(dir, `journal-${n}.db`));
  return timedOperation(
    { journal, source, target, state: new FileStateSink(join(dir, `state-${n}`)) },
    { operationId: `sha256:${n.toString(16).padStart(64, '0')}`, targetIdentity: 'sqlite:events' },
    calls,
  );
}

export async function protocolOverhead(options: {
  readonly repeats: number;
  readonly sizes: readonly number[];
}): Promise<OverheadRow[]> {
  const out: OverheadRow[] = [];
  for (const rows of options.sizes) {
    const dir = await mkdtemp(join(tmpdir(), 'dpone-bench-overhead-'));
    try {
      seedSource(join(dir, 'source.db'), rows);
      const calls = new Map<string, number>();
      await protocolOnce(dir, 0, calls); // warm-up that also counts the calls of one operation
      await bareOnce(dir, 0);
      const bare: number[] = [];
      const protocol: number[] = [];
      for (let i = 1; i <= options.repeats; i++) {
        bare.push(await bareOnce(dir, i));
        protocol.push(await protocolOnce(dir, i));
      }
      out.push(overheadRow({ database: 'sqlite', rows, bareRoundTrips: 2 }, bare, protocol, calls));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  return out;
}
