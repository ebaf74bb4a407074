import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { LocalPostgresCluster } from './harness/env/postgres-cluster.ts';
import { startCluster, unverifiedLive } from './fixtures/live-cluster.ts';
import { sql } from './fixtures/cluster-client.ts';
import { EXIT_CODES } from '../../src/contracts/errors.ts';
import { openFenceAccess, openFenceReader } from '../../src/cli/commands/recovery-fence.ts';
import { readWorkloadFile } from '../../src/cli/workload-file.ts';

/**
 * Issue 10's PostgreSQL mirror image, through the real CLI against a throw-away cluster: the first
 * run commits 10 rows and dies at `target.commit:after`; the retry's workload now says `?schema=dw`
 * (or `?schema=pg_temp`). Before, the retry resolved an unqualified fence through that search_path,
 * created a fresh one there and wrote the 10 rows again. Now the fence location is explicit and
 * recorded in the journal: the retry stops, explained, and the target keeps 10 rows.
 */
const BIN = fileURLToPath(new URL('../../bin/dpone.js', import.meta.url));
const unverified = unverifiedLive('postgres fence location');

const ROWS = 10;
let cluster: LocalPostgresCluster;
let n = 0;

const superuser = (database: string, statements: readonly string[]) => sql(cluster, database, statements);

/** A fresh database with a seeded source, and a workload writing (schema query) into it. */
async function world() {
  const database = `fence_loc_${process.pid}_${++n}`;
  await superuser('postgres', [`CREATE DATABASE ${database}`]);
  const values = Array.from({ length: ROWS }, (_, i) => `(${i + 1}, '2026-07-18', ${i * 10})`);
  await superuser(database, [
    'CREATE SCHEMA dw',
    'CREATE TABLE orders (id BIGINT, day TEXT, amount BIGINT)',
    // Target tables are not created unless a workload opts in (target.create): a DBA makes them.
    'CREATE TABLE events (id BIGINT, day TEXT, amount BIGINT)',
    `INSERT INTO orders VALUES ${values.join(', ')}, (99, '2026-07-19', 0)`,
  ]);
  const dir = mkdtempSync(join(tmpdir(), 'dpone-pg-fence-'));
  const write = (name: string, targetQuery: string) => {
    const path = join(dir, name);
    writeFileSync(
      path,
      stringify({
        identity: {
          release_id: 'r1',
          deployment_id: 'd1',
          dag_id: 'orders_daily',
          dag_run_logical_identity: 'scheduled__2026-07-18',
          workload_id: 'orders_to_events',
          mapped_partition_identity: 'day=2026-07-18',
          canonical_interval: { start: '2026-07-18T00:00:00Z', end: '2026-07-19T00:00:00Z' },
          canonical_target_identity: 'postgres:events',
        },
        intent: {
          pack_fingerprint: 'p1',
          normalized_load_strategy: 'append',
          source_snapshot_or_partition_identity: 'orders:day=2026-07-18',
          target_contract: 'events(id,day,amount)',
          schema_fingerprint: 's1',
        },
        route: 'postgres',
        source: { url: cluster.url(database), table: 'orders', password_env: 'PG_PASSWORD' },
        target: {
          url: `${cluster.url(database)}${targetQuery}`,
          table: 'events',
          password_env: 'PG_PASSWORD',
        },
        data: {
          columns: ['id', 'day', 'amount'],
          natural_key: ['id'],
          partition: { column: 'day', value: '2026-07-18' },
        },
        journal: `${cluster.url(database)}?schema=journal`,
        execution: { lease_ttl_ms: 1, state_dir: 'state' },
      }),
    );
    return path;
  };
  await superuser(database, ['CREATE SCHEMA journal']);
  return { database, dir, write };
}

const env = () => ({
  PG_PASSWORD: cluster.password,
  DPONE_JOURNAL_PASSWORD: cluster.password,
  DPONE_XCOM_PATH: '',
});

function dpone(args: readonly string[], cwd: string, extra: Record<string, string> = {}) {
  return execa(process.execPath, [BIN, ...args], { cwd, reject: false, env: { ...env(), ...extra } });
}

/** The first attempt: commits, then dies (SIGKILL) right after the target's COMMIT returned. */
async function commitThenDie(workload: string, cwd: string): Promise<void> {
  const child = execa(process.execPath, [BIN, 'run', '--workload', workload, '--json'], {
    cwd,
    reject: false,
    env: {
      ...env(),
      DPONE_FAULT_PLAN: JSON.stringify({ stop: { point: 'target.commit:after', hit: 1 }, notifyFd: 3 }),
    },
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let buffer = '';
    child.stdio[3]!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      if (buffer.includes('"event":"parked"')) resolve();
    });
    child.stdio[3]!.on('close', () =>
      reject(new Error('the first attempt never reached target.commit:after')),
    );
  });
  child.kill('SIGKILL');
  await child;
}

async function targetRows(database: string): Promise<{ rows: number; ids: number }> {
  const [result] = await superuser(database, [
    'SELECT count(*)::int AS rows, count(DISTINCT id)::int AS ids FROM public.events',
  ]);
  return result!.rows[0] as { rows: number; ids: number };
}

describe.skipIf(unverified)('the PostgreSQL fence location is explicit and recorded (live, real CLI)', () => {
  beforeAll(async () => {
    cluster = await startCluster();
  }, 60_000);
  afterAll(async () => {
    await cluster?.[Symbol.asyncDispose]();
  });

  it('a retry whose workload adds ?schema=dw is DIVERGED before any I/O; inspect explains; 10 rows', async () => {
    const { database, dir, write } = await world();
    const first = write('workload.yaml', '');
    await commitThenDie(first, dir);
    expect(await targetRows(database)).toEqual({ rows: ROWS, ids: ROWS });
    const moved = write('moved.yaml', '?schema=dw');
    const retry = await dpone(['run', '--workload', moved, '--json'], dir);
    expect(retry.exitCode, retry.stderr).toBe(EXIT_CODES.DPONE_TARGET_COMMIT_DIVERGED);
    expect(retry.stderr).toContain('postgres:public._dpone_fence');
    expect(retry.stderr).toContain('postgres:dw._dpone_fence');
    // No fence (or any table) appeared in dw, and the rows stay 10.
    const [dw] = await superuser(database, [
      "SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'dw'",
    ]);
    expect(dw!.rows[0].n).toBe(0);
    expect(await targetRows(database)).toEqual({ rows: ROWS, ids: ROWS });
    const id = JSON.parse(
      (await dpone(['identity', '--workload', moved, '--json'], dir)).stdout,
    ).operation_id;
    const inspect = await dpone(
      ['recovery', 'target-commit', 'inspect', '--operation-id', id, '--route', moved, '--json'],
      dir,
    );
    expect(inspect.exitCode, inspect.stderr).toBe(EXIT_CODES.DPONE_TARGET_COMMIT_DIVERGED);
    expect(JSON.parse(inspect.stdout).assessment).toMatchObject({
      kind: 'inconsistent',
      implication: expect.stringMatching(/recorded the target fence at postgres:public\._dpone_fence/),
    });
    // The original workload still finishes the operation without writing again.
    const back = await dpone(['run', '--workload', first, '--json'], dir);
    expect(back.exitCode, back.stderr).toBe(0);
    expect(JSON.parse(back.stdout)).toMatchObject({ status: 'completed-after-recovery', mutated: false });
    expect(await targetRows(database)).toEqual({ rows: ROWS, ids: ROWS });
  });

  it('recovery reads and raises the fence through the engine entry: a schema without a fence gains no table', async () => {
    // The PostgreSQL engine brings a fence reader and raiser (connectors/postgres/engine.ts) that
    // send only the fence statements; opening the target whole instead would create its fence table.
    const { database, dir, write } = await world();
    const workload = await readWorkloadFile(write('empty.yaml', '?schema=dw'), dir);
    const io = { stdout: process.stdout, stderr: process.stderr, env: env(), cwd: dir };
    for (const open of [openFenceReader, openFenceAccess]) {
      const fence = await open(workload, io);
      try {
        await fence.queryFence('op-without-fence').catch(() => undefined);
      } finally {
        await fence[Symbol.asyncDispose]();
      }
    }
    const [dw] = await superuser(database, [
      "SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'dw'",
    ]);
    expect(dw!.rows[0].n).toBe(0);
  });

  it('?schema=pg_temp puts the fence in a temporary schema: refused with exit 2, first run or retry; 10 rows', async () => {
    const { database, dir, write } = await world();
    const temporary = write('temp.yaml', '?schema=pg_temp');
    const refused = await dpone(['run', '--workload', temporary, '--json'], dir);
    expect(refused.exitCode).toBe(EXIT_CODES.DPONE_INVALID_INPUT);
    expect(refused.stderr).toMatch(/temporary schema/);
    await commitThenDie(write('workload.yaml', ''), dir);
    const retry = await dpone(['run', '--workload', temporary, '--json'], dir);
    expect(retry.exitCode).toBe(EXIT_CODES.DPONE_INVALID_INPUT);
    expect(await targetRows(database)).toEqual({ rows: ROWS, ids: ROWS });
  });
});
