import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalPostgresCluster } from './harness/env/postgres-cluster.ts';
import type { NativeCopy, RowStream, SourceConnector, TargetConnector } from '../../src/ports/connector.ts';
import { refusingEmptyPartitions } from '../../src/core/empty-partition.ts';
import { PostgresSource } from './postgres-source.ts';
import { PostgresTarget } from './postgres-target.ts';
import { withClusterClient } from './fixtures/cluster-client.ts';
import { appendRequest, firstFence } from './fixtures/append-request.ts';
import { startCluster, unverifiedLive } from './fixtures/live-cluster.ts';

/**
 * Issue 37 item 2: PostgreSQL to PostgreSQL with the same column types goes as binary COPY out of
 * the source straight into binary COPY in, no row decoded in Node; the count is both servers'
 * own and must agree; any type difference takes the text path and says why.
 */
const unverified = unverifiedLive('postgres binary COPY');

const TYPES = {
  id: 'int',
  part: 'date',
  amount: 'numeric(12,2)',
  ratio: 'double precision',
  at: 'timestamptz',
  raw: 'bytea',
  doc: 'jsonb',
  tags: 'text[]',
  v: 'text',
};
const COLUMNS = Object.keys(TYPES);
const DDL = (types: Record<string, string>) =>
  Object.entries(types)
    .map(([c, t]) => `${c} ${t}`)
    .join(', ');
let cluster: LocalPostgresCluster;

function admin<T>(body: (c: pg.Client) => Promise<T>): Promise<T> {
  return withClusterClient(cluster, 'bin', body);
}

const openTarget = (table: string, notes: string[] = []) =>
  PostgresTarget.open({
    url: cluster.url('bin'),
    password: cluster.password,
    table,
    columns: COLUMNS,
    naturalKey: ['id'],
    env: {},
    note: (message) => notes.push(message),
  });

const openSource = () =>
  PostgresSource.open({
    url: cluster.url('bin'),
    password: cluster.password,
    table: 'src',
    columns: COLUMNS,
    env: {},
  });

/** The partition's rows appended under epoch 1 of `operationId`. */
const write = (operationId: string, rows: RowStream) => appendRequest(operationId, '2026-11-01', rows);

/** The stream as it is, counting the chunks anyone decodes from it (`native` passed on as given). */
function watched(stream: RowStream, native = stream.native): { rows: RowStream; decoded: () => number } {
  let decoded = 0;
  const rows: RowStream = {
    columns: stream.columns,
    ...(native ? { native } : {}),
    async *[Symbol.asyncIterator]() {
      for await (const chunk of stream) {
        decoded += chunk.length;
        yield chunk;
      }
    },
    close: () => stream.close(),
    [Symbol.asyncDispose]: () => stream.close(),
  };
  return { rows, decoded: () => decoded };
}

/**
 * The source's partition written to `target` under epoch 1 of `operationId`, the stream watched:
 * the write's answer, the rows decoded in Node on the way, and the stream's native copy.
 */
async function copyWatched(source: SourceConnector, target: TargetConnector, operationId: string) {
  await target.prepareFence(firstFence(operationId), { create: true });
  const stream = await source.read({ partitionColumn: 'part', partitionValue: '2026-11-01' });
  const { rows, decoded } = watched(stream);
  try {
    return {
      result: await target.mutate(write(operationId, rows)),
      decoded: decoded(),
      native: stream.native,
    };
  } finally {
    await rows.close();
  }
}

/** Rows of the partition in the source and not in `table`, and the other way round (values compared by the server). */
const differences = (table: string) =>
  admin(
    async (c) =>
      (
        await c.query(
          `SELECT (SELECT count(*)::int FROM (SELECT ${COLUMNS.join(', ')} FROM src WHERE part = '2026-11-01' ` +
            `EXCEPT ALL SELECT ${COLUMNS.join(', ')} FROM ${table}) a) + ` +
            `(SELECT count(*)::int FROM (SELECT ${COLUMNS.join(', ')} FROM ${table} EXCEPT ALL ` +
            `SELECT ${COLUMNS.join(', ')} FROM src WHERE part = '2026-11-01') b) AS n`,
        )
      ).rows[0].n as number,
  );
const count = (table: string) =>
  admin(async (c) => Number((await c.query(`SELECT count(*) AS n FROM ${table}`)).rows[0].n));

const TOTAL = 25_003;

describe.skipIf(unverified)('postgres to postgres: binary COPY pass-through (live)', () => {
  beforeAll(async () => {
    cluster = await startCluster();
    await withClusterClient(cluster, 'postgres', (c) => c.query('CREATE DATABASE bin'));
    await admin(async (c) => {
      await c.query(`CREATE TABLE src (${DDL(TYPES)})`);
      await c.query(
        `INSERT INTO src SELECT g, '2026-11-01', g * 1.25 - 999.99, ` +
          `CASE g % 4 WHEN 0 THEN 'NaN'::float8 WHEN 1 THEN -0.0 WHEN 2 THEN 1e-300 ELSE g / 3.0 END, ` +
          `'2026-11-01 12:00:00.123456+05:30'::timestamptz + g * interval '1 second', ` +
          `decode(md5(g::text), 'hex'), jsonb_build_object('g', g, 'u', 'ünï\\t"q"'), ` +
          `ARRAY['a\tb', NULL, g::text], CASE WHEN g % 7 = 0 THEN NULL ELSE E'tab\\there \\\\N ✓' || g END ` +
          `FROM generate_series(1, $1) g`,
        [TOTAL],
      );
      await c.query(`INSERT INTO src (id, part, v) VALUES (0, '2026-11-02', 'other partition')`);
      for (const table of ['tgt', 'tgt_lie', 'tgt_empty_check'])
        await c.query(`CREATE TABLE ${table} (${DDL(TYPES)})`);
      // A type of the database's own (an enum), the same name on both sides: the text path.
      await c.query("CREATE TYPE mood AS ENUM ('sad', 'ok')");
      await c.query('CREATE TABLE src_mood (id int, part date, m mood)');
      await c.query("INSERT INTO src_mood SELECT g, '2026-11-01', 'ok' FROM generate_series(1, 3) g");
      await c.query('CREATE TABLE tgt_mood (id int, part date, m mood)');
      // Same names, one type differs only in its modifier: the text path.
      await c.query(`CREATE TABLE tgt_other (${DDL({ ...TYPES, amount: 'numeric(14,2)' })})`);
    });
  });
  afterAll(async () => {
    await cluster?.[Symbol.asyncDispose]();
  });

  it('same types: the bytes go server to server, no row decoded in Node, every value exact, the count the servers own', async () => {
    await using source = await openSource();
    const notes: string[] = [];
    await using target = await openTarget('tgt', notes);
    const { result, decoded } = await copyWatched(source, target, 'op-bin');
    expect(result).toEqual({ applied: true, rowsWritten: TOTAL, epoch: 1 });
    expect(decoded).toBe(0);
    expect(notes).toEqual([]);
    expect(await differences('tgt')).toBe(0);
    expect(await count('tgt')).toBe(TOTAL);
    expect(await target.queryFence('op-bin')).toMatchObject({ status: 'committed', rowsWritten: TOTAL });
  });

  it('behind the empty-partition check one row is decoded, and the COPY still carries the whole partition', async () => {
    await using source = refusingEmptyPartitions(await openSource());
    await using target = await openTarget('tgt_empty_check');
    const { result, decoded, native } = await copyWatched(source, target, 'op-empty-check');
    expect(native).toBeDefined();
    expect(result).toMatchObject({ rowsWritten: TOTAL });
    expect(decoded).toBe(0);
    expect(await differences('tgt_empty_check')).toBe(0);
  });

  it('a type that differs (numeric(12,2) against numeric(14,2)) takes the text path and says why, without values', async () => {
    await using source = await openSource();
    const notes: string[] = [];
    await using target = await openTarget('tgt_other', notes);
    const { result, decoded } = await copyWatched(source, target, 'op-other');
    expect(result).toMatchObject({ rowsWritten: TOTAL });
    expect(decoded).toBe(TOTAL);
    expect(notes).toEqual([
      "the PostgreSQL source's rows are copied through dpone as text, not as binary COPY: " +
        'column amount is numeric(12,2) in the source, numeric(14,2) in the target',
    ]);
    expect(await differences('tgt_other')).toBe(0);
  });

  it("a type of the database's own (an enum) takes the text path even with the same name on both sides", async () => {
    const columns = ['id', 'part', 'm'];
    await using source = await PostgresSource.open({
      url: cluster.url('bin'),
      password: cluster.password,
      table: 'src_mood',
      columns,
      env: {},
    });
    const notes: string[] = [];
    await using target = await PostgresTarget.open({
      url: cluster.url('bin'),
      password: cluster.password,
      table: 'tgt_mood',
      columns,
      naturalKey: ['id'],
      env: {},
      note: (message) => notes.push(message),
    });
    const { result, decoded } = await copyWatched(source, target, 'op-mood');
    expect(result).toMatchObject({ rowsWritten: 3 });
    expect(decoded).toBe(3);
    expect(notes).toEqual([
      "the PostgreSQL source's rows are copied through dpone as text, not as binary COPY: " +
        "column m has a type that is not PostgreSQL's own (user-defined mood)",
    ]);
  });

  it('counts that disagree abort the COPY: nothing lands, the fence stays open', async () => {
    await using source = await openSource();
    await using target = await openTarget('tgt_lie');
    await target.prepareFence(firstFence('op-lie'), { create: true });
    const stream = await source.read({ partitionColumn: 'part', partitionValue: '2026-11-01' });
    const native = stream.native!;
    // The source claims one row more than it sent.
    const lying = {
      ...native,
      columnTypes: () => native.columnTypes(),
      open: async (): Promise<NativeCopy> => {
        const bytes = await native.open();
        return Object.defineProperty(
          { [Symbol.asyncIterator]: () => bytes[Symbol.asyncIterator]() },
          'rowCount',
          { get: () => (bytes.rowCount === null ? null : bytes.rowCount + 1) },
        ) as NativeCopy;
      },
    };
    const { rows } = watched(stream, lying);
    await expect(target.mutate(write('op-lie', rows))).rejects.toThrow();
    await rows.close();
    expect(await count('tgt_lie')).toBe(0);
    expect(await target.queryFence('op-lie')).toMatchObject({ status: 'not-committed', epoch: 1 });
  });
});
