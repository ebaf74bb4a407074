import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalPostgresCluster } from './harness/env/postgres-cluster.ts';
import { startCluster, unverifiedLive } from './fixtures/live-cluster.ts';
import { ERROR_CODES } from '../../src/contracts/errors.ts';
import type { FaultPoints } from '../../src/ports/fault-points.ts';
import type { TargetConnector } from '../../src/ports/connector.ts';
import { PostgresSource } from './postgres-source.ts';
import { PostgresTarget } from './postgres-target.ts';
import { describeFenceConformance } from '../../testing/fence-conformance.ts';
import { collectRows, rowStreamOf } from '../../src/ports/row-stream.ts';
import { withClusterClient } from './fixtures/cluster-client.ts';

const unverified = unverifiedLive('postgres connectors');

let cluster: LocalPostgresCluster;
let n = 0;
const COLUMNS = ['id', 'part', 'v'];
const ROWS = [
  ['1', 'p1', 'a'],
  ['2', 'p1', 'b'],
];

function admin<T>(database: string, body: (c: pg.Client) => Promise<T>): Promise<T> {
  return withClusterClient(cluster, database, body);
}

async function freshDb(): Promise<string> {
  const name = `conn_${process.pid}_${++n}`;
  await admin('postgres', (c) => c.query(`CREATE DATABASE ${name}`));
  return name;
}

function open(db: string, faults?: FaultPoints, env: NodeJS.ProcessEnv = {}): Promise<TargetConnector> {
  return PostgresTarget.open({
    url: cluster.url(db),
    password: cluster.password,
    table: 'events',
    columns: COLUMNS,
    create: { columns: { id: 'text', part: 'text', v: 'text' } },
    naturalKey: ['id'],
    env,
    ...(faults ? { faults } : {}),
  });
}

const INTENT = `sha256:${'1'.repeat(64)}`;
const ref = (epoch: number) => ({ operationId: 'op-1', epoch, intentDigest: INTENT, holder: `h${epoch}` });
const CREATE = { create: true } as const;

const request = (epoch: number) => ({
  fence: ref(epoch),
  strategy: 'append' as const,
  partitionColumn: 'part',
  partitionValue: 'p1',
  rows: rowStreamOf(COLUMNS, ROWS),
});

const count = (db: string) =>
  admin(db, async (c) => Number((await c.query('SELECT count(*) AS n FROM events')).rows[0].n));

describe.skipIf(unverified)('postgres target and source (live)', () => {
  beforeAll(async () => {
    cluster = await startCluster();
  });
  afterAll(async () => {
    await cluster?.[Symbol.asyncDispose]();
  });

  it('commits data and marker together, proves it, and refuses a stale epoch without writing', async () => {
    const db = await freshDb();
    await using target = await open(db);
    expect(await target.queryFence('op-1')).toMatchObject({ status: 'unknown' });
    expect(await target.prepareFence(ref(1), CREATE)).toMatchObject({
      installed: true,
      epoch: 1,
      status: 'not-committed',
    });
    expect(await target.queryFence('op-1')).toMatchObject({ status: 'not-committed', epoch: 1 });
    expect(await target.mutate(request(1))).toEqual({ applied: true, rowsWritten: 2, epoch: 1 });
    expect(await target.queryFence('op-1')).toMatchObject({
      status: 'committed',
      committedEpoch: 1,
      rowsWritten: 2,
      intentDigest: INTENT,
    });
    expect(await target.prepareFence(ref(0), CREATE)).toMatchObject({ installed: false, epoch: 1 });
    await target.prepareFence(ref(2), CREATE);
    await expect(target.mutate(request(1))).rejects.toMatchObject({ code: ERROR_CODES.FENCED });
    expect(await count(db)).toBe(2);
    await using source = await PostgresSource.open({
      url: cluster.url(db),
      password: cluster.password,
      table: 'events',
      columns: COLUMNS,
    });
    expect(await collectRows(await source.read({ partitionColumn: 'part', partitionValue: 'p1' }))).toEqual(
      ROWS,
    );
  });

  it('the guard holds the row lock: a new epoch waits for the zombie commit, then sees it committed', async () => {
    const db = await freshDb();
    let release!: () => void;
    let parked!: () => void;
    const atCommit = new Promise<void>((resolve) => (parked = resolve));
    const gate = new Promise<void>((resolve) => (release = resolve));
    const faults: FaultPoints = { hit: (p) => (p === 'target.commit:before' ? (parked(), gate) : undefined) };
    await using zombie = await open(db, faults);
    await using next = await open(db);
    await zombie.prepareFence(ref(1), CREATE);
    const writing = zombie.mutate(request(1));
    await atCommit;
    let raised = false;
    const raising = next.prepareFence(ref(2), CREATE).then((e) => ((raised = true), e));
    // Wait until the server itself shows the raise blocked on the fence row's lock.
    await expect
      .poll(
        () =>
          admin(
            db,
            async (c) =>
              (
                await c.query(
                  "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock'",
                )
              ).rows[0].n,
          ),
        { timeout: 10_000 },
      )
      .toBe(1);
    expect(raised).toBe(false);
    release();
    await writing;
    expect(await raising).toMatchObject({
      installed: true,
      epoch: 2,
      status: 'committed',
      committedEpoch: 1,
    });
    expect(await next.queryFence('op-1')).toMatchObject({ status: 'committed', epoch: 2, committedEpoch: 1 });
    expect(await count(db)).toBe(1 * 2);
  });

  describeFenceConformance('postgres', async (options) => {
    const db = await freshDb();
    const target = await open(db, options?.faults);
    return { target, rows: () => count(db), [Symbol.asyncDispose]: () => target.close() };
  });

  it('a dead server is FENCE_UNAVAILABLE without URL, user or password in the message', async () => {
    const secret = 'sekrit-4711';
    const error = await PostgresTarget.open({
      url: `postgres://dpone@127.0.0.1:1/x?connect_timeout_ms=500`,
      password: secret,
      table: 't',
      columns: COLUMNS,
      naturalKey: ['id'],
      env: {},
    }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: ERROR_CODES.FENCE_UNAVAILABLE });
    expect(JSON.stringify(error) + (error as Error).message).not.toMatch(/sekrit|dpone@|127\.0\.0\.1/);
  });

  it('the no-fence variant answers only under DPONE_HARNESS=1 and then replays the mutation', async () => {
    const db = await freshDb();
    await using safe = await open(db, undefined, { DPONE_UNSAFE_VARIANT: 'no-fence' });
    await safe.prepareFence(ref(1), CREATE);
    await safe.mutate(request(1));
    await expect(safe.mutate(request(0))).rejects.toMatchObject({ code: ERROR_CODES.FENCED });
    expect(await safe.mutate(request(1))).toMatchObject({ applied: false });
    await using broken = await open(db, undefined, { DPONE_HARNESS: '1', DPONE_UNSAFE_VARIANT: 'no-fence' });
    await broken.mutate(request(1));
    expect(await count(db)).toBe(4);
    await expect(
      open(db, undefined, { DPONE_HARNESS: '1', DPONE_UNSAFE_VARIANT: 'nope' }),
    ).rejects.toMatchObject({ code: ERROR_CODES.INVALID_INPUT });
  });
});
