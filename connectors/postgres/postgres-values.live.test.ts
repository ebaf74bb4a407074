import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalPostgresCluster } from './harness/env/postgres-cluster.ts';
import { startCluster, unverifiedLive } from './fixtures/live-cluster.ts';
import { sql } from './fixtures/cluster-client.ts';
import { ERROR_CODES } from '../../src/contracts/errors.ts';
import { PostgresSource } from './postgres-source.ts';
import { PostgresTarget } from './postgres-target.ts';
import { collectRows, rowStreamOf } from '../../src/ports/row-stream.ts';

const unverified = unverifiedLive('postgres values');

const DB = 'values_db';
const PASSWORD = 'role-pw-4711';
const TYPES = {
  id: 'BIGINT',
  day: 'DATE',
  ts: 'TIMESTAMPTZ',
  local_ts: 'TIMESTAMP',
  f8: 'DOUBLE PRECISION',
  f4: 'REAL',
  n: 'NUMERIC',
  iv: 'INTERVAL',
  b: 'BYTEA',
  m: 'MONEY',
  label: 'TEXT',
} as const;
const COLUMNS = Object.keys(TYPES);
const DDL = COLUMNS.map((c) => `${c} ${TYPES[c as keyof typeof TYPES]}`).join(', ');
/** Values whose text form every one of the odd settings below changes. */
const ROWS = [
  `(1, '2026-07-05', '2026-07-05 23:30:00+00', '2026-07-05 01:02:03.456789', 1::float8/3, 1::real/3, 1.10, '1 year 2 mons 3 days 04:05:06.789', '\\x00ff', 1234.56, 'a')`,
  `(2, '2026-07-05', '2026-01-12 00:00:00+00', '2026-12-01 00:00:00', 0.1::float8 + 0.2, 16777217, 123456789012345678901234567890.123456789, '-1 days +02:00:00', '\\x', -0.01, 'b')`,
  `(3, '2026-07-05', NULL, NULL, 1e-310, 3.4e38, 0, '0', NULL, 0, NULL)`,
  `(4, '2026-05-07', '2026-05-07 00:00:00+00', '2026-05-07 00:00:00', 2, 2, 2, '2 days', '\\x02', 2, 'other day')`,
];

let cluster: LocalPostgresCluster;

const admin = (statements: readonly string[]) => sql(cluster, DB, statements);
const url = (user: string) => `postgres://${user}@${cluster.host}:${cluster.port}/${DB}`;
/** The source as the odd-settings source role reads it. */
const openSource = () =>
  PostgresSource.open({ url: url('src_role'), password: PASSWORD, table: 'src', columns: COLUMNS });

describe.skipIf(unverified)('postgres values arrive exactly whatever the roles set (live)', () => {
  beforeAll(async () => {
    cluster = await startCluster();
    const root = new pg.Client({ ...cluster, database: 'postgres' });
    await root.connect();
    // A source role as many shops have it, and a target role with other odd settings.
    await root.query(`CREATE ROLE src_role LOGIN PASSWORD '${PASSWORD}'`);
    await root.query(`CREATE ROLE tgt_role LOGIN PASSWORD '${PASSWORD}'`);
    for (const setting of [
      "DateStyle = 'SQL, DMY'",
      'extra_float_digits = 0',
      "TimeZone = 'Asia/Kathmandu'",
      "IntervalStyle = 'sql_standard'",
      "bytea_output = 'escape'",
    ])
      await root.query(`ALTER ROLE src_role SET ${setting}`);
    for (const setting of [
      "DateStyle = 'German, MDY'",
      'extra_float_digits = -15',
      "TimeZone = 'America/St_Johns'",
      "IntervalStyle = 'iso_8601'",
    ])
      await root.query(`ALTER ROLE tgt_role SET ${setting}`);
    await root.query(`CREATE DATABASE ${DB} OWNER tgt_role`);
    await root.end();
    await admin([
      `CREATE TABLE src (${DDL})`,
      `INSERT INTO src VALUES ${ROWS.join(', ')}`,
      `CREATE TABLE tgt (${DDL})`,
      'GRANT SELECT ON src TO src_role',
      'GRANT SELECT, INSERT, DELETE ON tgt TO tgt_role',
    ]);
  });
  afterAll(async () => {
    await cluster?.[Symbol.asyncDispose]();
  });

  it('reads the date partition in its type and writes every value identical, per value', async () => {
    await using source = await openSource();
    const rows = await collectRows(
      await source.read({ partitionColumn: 'day', partitionValue: '2026-07-05' }),
    );
    expect(rows.map((row) => row[COLUMNS.indexOf('id')]).sort()).toEqual(['1', '2', '3']);
    await using target = await PostgresTarget.open({
      url: url('tgt_role'),
      password: PASSWORD,
      table: 'tgt',
      columns: COLUMNS,
      naturalKey: ['id'],
      env: {},
    });
    const fence = { operationId: 'op-v', epoch: 1, intentDigest: 'sha256:v', holder: 'h1' };
    await target.prepareFence(fence, { create: true });
    await target.mutate({
      fence,
      strategy: 'replace-partition',
      partitionColumn: 'day',
      partitionValue: '2026-07-05',
      rows: rowStreamOf(COLUMNS, rows),
    });
    // Compared by the server: typed values both ways, then the text of each row under one session.
    const [missing, extra, digests] = await admin([
      "SELECT count(*)::int AS n FROM (SELECT * FROM src WHERE day = '2026-07-05' EXCEPT ALL SELECT * FROM tgt) d",
      "SELECT count(*)::int AS n FROM (SELECT * FROM tgt EXCEPT ALL SELECT * FROM src WHERE day = '2026-07-05') d",
      "SELECT (SELECT md5(string_agg(s::text, '|' ORDER BY id)) FROM src s WHERE day = '2026-07-05') AS src, " +
        "(SELECT md5(string_agg(t::text, '|' ORDER BY id)) FROM tgt t) AS tgt, (SELECT count(*)::int FROM tgt) AS n",
    ]);
    expect(missing!.rows[0].n).toBe(0);
    expect(extra!.rows[0].n).toBe(0);
    expect(digests!.rows[0]).toMatchObject({ n: 3, tgt: digests!.rows[0].src });
  });

  it('compares the partition in the column type: 2026-7-5 is the date 2026-07-05', async () => {
    await using source = await openSource();
    const rows = await collectRows(await source.read({ partitionColumn: 'day', partitionValue: '2026-7-5' }));
    const [id, day] = [COLUMNS.indexOf('id'), COLUMNS.indexOf('day')];
    expect(rows.map((row) => [row[id], row[day]]).sort()).toEqual([
      ['1', '2026-07-05'],
      ['2', '2026-07-05'],
      ['3', '2026-07-05'],
    ]);
  });

  it('a partition value the column type cannot read is bad input naming data.partition.value', async () => {
    await using source = await openSource();
    await expect(source.read({ partitionColumn: 'day', partitionValue: '2026-13-45' })).rejects.toMatchObject(
      {
        code: ERROR_CODES.INVALID_INPUT,
        fields: { field: 'data.partition.value', sqlstate: expect.stringMatching(/^22/) },
      },
    );
  });
});
