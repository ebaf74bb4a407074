import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalPostgresCluster } from './harness/env/postgres-cluster.ts';
import { DponeError, ERROR_CODES } from '../../src/contracts/errors.ts';
import type { Row, RowStream } from '../../src/ports/connector.ts';
import { DEFAULT_CHUNK_ROWS, collectRows, rowStream } from '../../src/ports/row-stream.ts';
import { PostgresSource } from './postgres-source.ts';
import { PostgresTarget } from './postgres-target.ts';
import { withClusterClient } from './fixtures/cluster-client.ts';
import { appendRequest, firstFence } from './fixtures/append-request.ts';
import { startCluster, unverifiedLive } from './fixtures/live-cluster.ts';

/**
 * Issue 15: the partition streams from a server-side cursor into one COPY inside the guarded
 * transaction. Several chunks, awkward text, a source that dies mid-stream, rows the target refuses.
 */
const unverified = unverifiedLive('postgres streaming');

const COLUMNS = ['id', 'part', 'v'];
/** Text COPY must escape, and text that looks like its escapes. */
const AWKWARD = ['tab\there', 'line\nbreak', 'cr\rhere', 'back\\slash', '\\N', 'ünïcødé ✓', '', ' '];
let cluster: LocalPostgresCluster;

function admin<T>(body: (c: pg.Client) => Promise<T>): Promise<T> {
  return withClusterClient(cluster, 'stream', body);
}

const openTarget = (table: string) =>
  PostgresTarget.open({
    url: cluster.url('stream'),
    password: cluster.password,
    table,
    columns: COLUMNS,
    naturalKey: ['id'],
    env: {},
  });

const openSource = () =>
  PostgresSource.open({
    url: cluster.url('stream'),
    password: cluster.password,
    table: 'src',
    columns: COLUMNS,
  });

/** The partition's rows appended under epoch 1 of `operationId`. */
const write = (operationId: string, rows: RowStream) => appendRequest(operationId, 'p1', rows);

const count = (table: string) =>
  admin(async (c) => Number((await c.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n));

describe.skipIf(unverified)('postgres streaming: cursor in, COPY out (live)', () => {
  const total = 2 * DEFAULT_CHUNK_ROWS + 7;

  beforeAll(async () => {
    cluster = await startCluster();
    await withClusterClient(cluster, 'postgres', (c) => c.query('CREATE DATABASE stream'));
    await admin(async (c) => {
      await c.query('CREATE TABLE src (id int, part text, v text)');
      await c.query(
        'INSERT INTO src SELECT g, $2, ($3::text[])[1 + g % array_length($3::text[], 1)] || g FROM generate_series(1, $1) g',
        [total, 'p1', AWKWARD],
      );
      await c.query("INSERT INTO src VALUES (0, 'p2', 'other partition'), (-1, 'p1', NULL)");
      for (const table of ['tgt', 'tgt_fail', 'tgt_strict', 'tgt_slow']) {
        await c.query(
          `CREATE TABLE ${table} (id int, part text, v text${table === 'tgt_strict' ? ' NOT NULL' : ''})`,
        );
      }
    });
  });
  afterAll(async () => {
    await cluster?.[Symbol.asyncDispose]();
  });

  it('reads the partition in chunks and lands every value exactly, with its count in the fence', async () => {
    await using source = await openSource();
    const sizes: number[] = [];
    const stream = await source.read({ partitionColumn: 'part', partitionValue: 'p1' });
    const counted = rowStream(stream.columns, async function* () {
      for await (const chunk of stream) {
        sizes.push(chunk.length);
        yield chunk;
      }
    });
    await using target = await openTarget('tgt');
    await target.prepareFence(firstFence('op-all'), { create: true });
    expect(await target.mutate(write('op-all', counted))).toEqual({
      applied: true,
      rowsWritten: total + 1,
      epoch: 1,
    });
    // The source offers binary COPY too, so its first FETCH takes one row (a wrapper that only
    // looks at the first rows decodes one); this wrapper drops `native`, so the rows go as text.
    expect(sizes).toEqual([1, DEFAULT_CHUNK_ROWS, DEFAULT_CHUNK_ROWS, 7]);
    expect(await target.queryFence('op-all')).toMatchObject({ status: 'committed', rowsWritten: total + 1 });
    const differences = await admin(
      async (c) =>
        (
          await c.query(
            "SELECT (SELECT count(*)::int FROM (SELECT * FROM src WHERE part = 'p1' EXCEPT ALL SELECT * FROM tgt) a) + " +
              "(SELECT count(*)::int FROM (SELECT * FROM tgt EXCEPT ALL SELECT * FROM src WHERE part = 'p1') b) AS n",
          )
        ).rows[0].n,
    );
    expect(differences).toBe(0);
    // The cursor's transaction ended with the stream: the source reads again on the same connection.
    expect(await collectRows(await source.read({ partitionColumn: 'part', partitionValue: 'p2' }))).toEqual([
      ['0', 'p2', 'other partition'],
    ]);
  });

  it('a consumer that stops after a full chunk (a FETCH read ahead in flight) leaves the source reusable', async () => {
    await using source = await openSource();
    const stream = await source.read({ partitionColumn: 'part', partitionValue: 'p1' });
    const seen: number[] = [];
    for await (const chunk of stream) {
      seen.push(chunk.length);
      if (seen.length === 2) break;
    }
    expect(seen).toEqual([1, DEFAULT_CHUNK_ROWS]);
    expect(await collectRows(await source.read({ partitionColumn: 'part', partitionValue: 'p2' }))).toEqual([
      ['0', 'p2', 'other partition'],
    ]);
  });

  it('a source that dies mid-stream aborts the COPY: nothing lands, the fence stays open, the next write works', async () => {
    await using target = await openTarget('tgt_fail');
    await target.prepareFence(firstFence('op-fail'), { create: true });
    const dying = rowStream(COLUMNS, function* (): Generator<Row[]> {
      yield Array.from({ length: DEFAULT_CHUNK_ROWS }, (_, i) => [i, 'p1', 'x']);
      throw new DponeError(ERROR_CODES.PRE_COMMIT_FAILED, 'the source connection was lost');
    });
    await expect(target.mutate(write('op-fail', dying))).rejects.toMatchObject({
      code: ERROR_CODES.PRE_COMMIT_FAILED,
    });
    expect(await count('tgt_fail')).toBe(0);
    expect(await target.queryFence('op-fail')).toMatchObject({ status: 'not-committed', epoch: 1 });
    await using source = await openSource();
    const rows = await source.read({ partitionColumn: 'part', partitionValue: 'p1' });
    expect(await target.mutate(write('op-fail', rows))).toMatchObject({
      applied: true,
      rowsWritten: total + 1,
    });
    expect(await count('tgt_fail')).toBe(total + 1);
  });

  it('rows the target refuses (NOT NULL) are DATA_REJECTED with nothing landed', async () => {
    await using source = await openSource();
    await using target = await openTarget('tgt_strict');
    await target.prepareFence(firstFence('op-strict'), { create: true });
    const rows = await source.read({ partitionColumn: 'part', partitionValue: 'p1' });
    await expect(target.mutate(write('op-strict', rows))).rejects.toMatchObject({
      code: ERROR_CODES.DATA_REJECTED,
      fields: { sqlstate: '23502' },
    });
    expect(await count('tgt_strict')).toBe(0);
    expect(await target.queryFence('op-strict')).toMatchObject({ status: 'not-committed' });
  });

  it('a COPY longer than query_timeout_ms lands (the bound is per stalled step, not per partition)', async () => {
    // 300 ms per statement; the COPY below takes at least 4 x 150 ms.
    const target = await PostgresTarget.open({
      url: `${cluster.url('stream')}?query_timeout_ms=300`,
      password: cluster.password,
      table: 'tgt_slow',
      columns: COLUMNS,
      naturalKey: ['id'],
      env: {},
    });
    await using _target = target;
    await target.prepareFence(firstFence('op-slow'), { create: true });
    const slow = rowStream(COLUMNS, async function* () {
      for (let c = 0; c < 4; c++) {
        await new Promise((resolve) => setTimeout(resolve, 150));
        yield Array.from({ length: 10 }, (_, i): Row => [c * 10 + i, 'p1', 'slow']);
      }
    });
    const started = performance.now();
    expect(await target.mutate(write('op-slow', slow))).toMatchObject({ applied: true, rowsWritten: 40 });
    expect(performance.now() - started).toBeGreaterThan(600);
    expect(await count('tgt_slow')).toBe(40);
    expect(await target.queryFence('op-slow')).toMatchObject({ status: 'committed', rowsWritten: 40 });
  });
});
