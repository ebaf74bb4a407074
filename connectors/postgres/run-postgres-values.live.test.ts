import type { LocalPostgresCluster } from './harness/env/postgres-cluster.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkloadSpec } from './fixtures/postgres-team-cluster.ts';
import {
  errorOf,
  removeWorkloads,
  runWorkload,
  sql,
  startTeamCluster,
  unverifiedLive,
  writeWorkload,
} from './fixtures/postgres-team-cluster.ts';

/**
 * Issue 17, rows 1, 2, 3, 8 and 9, through the CLI against a real PostgreSQL: values under odd
 * role settings, names PostgreSQL would mangle, a missing target table, a mistyped partition.
 */
const unverified = unverifiedLive('dpone run on PostgreSQL (values, names)');

let cluster: LocalPostgresCluster;
const TYPES = 'id bigint, day date, amount double precision, n numeric, ts timestamptz, region text';
const COLUMNS = ['id', 'day', 'amount', 'n', 'ts', 'region'];

const base = (id: string, target: Partial<WorkloadSpec['target']> = {}): WorkloadSpec => ({
  id,
  source: { user: 'reader', database: 'app', table: 'orders' },
  target: { user: 'loader', database: 'dw', table: 'dw.events', schema: 'dw', ...target },
  columns: COLUMNS,
  partition: { column: 'day', value: '2026-07-05' },
});

/** Each row as the text the server writes under one fixed session (the admin's): per value. */
async function rows(database: string, query: string): Promise<string[][]> {
  const [result] = await sql(cluster, database, [query]);
  return result!.rows.map((row: Record<string, string>) => COLUMNS.map((c) => row[c]!));
}
const canonical = (from: string) =>
  `SELECT ${COLUMNS.map((c) => `${c}::text AS ${c}`).join(', ')} FROM ${from} ORDER BY id`;

async function journalEntries(id: string): Promise<number> {
  const [result] = await sql(cluster, 'ops', [
    `SELECT CASE WHEN to_regclass('dpone_commit_journal') IS NULL THEN 0 ELSE ` +
      `(SELECT count(*)::int FROM dpone_commit_journal WHERE metadata LIKE '%"${id}"%') END AS n`,
  ]);
  return result!.rows[0].n as number;
}

describe.skipIf(unverified)('dpone run on PostgreSQL: values and names (live, CLI)', () => {
  beforeAll(async () => {
    cluster = await startTeamCluster();
    await sql(cluster, 'app', [
      `CREATE TABLE orders (${TYPES})`,
      "INSERT INTO orders VALUES (1, '2026-07-05', 1::float8/3, 1.10, '2026-07-05 23:30:00+00', 'eu'), " +
        "(2, '2026-07-05', 0.1::float8 + 0.2, 123456789012345678901234567890.5, '2026-01-12 00:00:00+00', 'us'), " +
        "(3, '2026-07-05', 1e-310, 0, NULL, NULL), (4, '2026-05-07', 2, 2, '2026-05-07 00:00:00+00', 'eu')",
      'CREATE TABLE orders_text (id bigint, day text, amount text, n text, ts text, region text)',
      "INSERT INTO orders_text VALUES (1, '2026-07-18', '1', '1', NULL, 'eu'), (2, '2026-07-18', '2', '2', NULL, 'eu')",
      'GRANT SELECT ON orders, orders_text TO reader',
    ]);
    await sql(cluster, 'dw', [
      `CREATE TABLE dw.events (${TYPES})`,
      `CREATE TABLE dw.events_text (${TYPES.replace('day date', 'day text')})`,
      'GRANT SELECT, INSERT, DELETE ON dw.events, dw.events_text TO loader',
    ]);
    // What many shops have: a source role reading dates day-first and floats short, and a target
    // role with other odd settings of its own.
    await sql(cluster, 'postgres', [
      "ALTER ROLE reader SET DateStyle = 'SQL, DMY'",
      'ALTER ROLE reader SET extra_float_digits = 0',
      "ALTER ROLE reader SET TimeZone = 'Asia/Kathmandu'",
      "ALTER ROLE loader SET DateStyle = 'German, MDY'",
      'ALTER ROLE loader SET extra_float_digits = -15',
      "ALTER ROLE loader SET TimeZone = 'America/St_Johns'",
    ]);
  });
  afterAll(async () => {
    removeWorkloads();
    await cluster?.[Symbol.asyncDispose]();
  });

  it('row 1: under DateStyle SQL, DMY and extra_float_digits 0, every value arrives identical', async () => {
    const result = await runWorkload(writeWorkload(cluster, base('values')));
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'committed', rows_written: 3 });
    const source = await rows('app', canonical("orders WHERE day = '2026-07-05'"));
    expect(source).toHaveLength(3);
    expect(await rows('dw', canonical('dw.events'))).toEqual(source);
    const [digests] = await sql(cluster, 'dw', [
      "SELECT count(*)::int AS n FROM dw.events WHERE day = '2026-07-05' AND amount = 1::float8/3",
    ]);
    expect(digests!.rows[0].n).toBe(1); // 2026-07-05 stayed July 5, and 1/3 kept all its digits
  });

  it.each([
    ['pg_temp.events', 'target.table'],
    ['pg_catalog.events', 'target.table'],
  ])('row 2: target.table %s is refused at load (exit 2), nothing written', async (table, field) => {
    const result = await runWorkload(
      writeWorkload(cluster, base(`temp-${table}`, { table, schema: undefined })),
    );
    expect(result.exitCode).toBe(2);
    expect(errorOf(result.stderr)).toMatchObject({ code: 'DPONE_INVALID_INPUT', field });
    expect(await journalEntries(`temp-${table}`)).toBe(0);
  });

  it('row 2: ?schema=pg_temp in target.url is refused at load too', async () => {
    const result = await runWorkload(
      writeWorkload(cluster, base('temp-url', { table: 'events', schema: 'pg_temp' })),
    );
    expect(result.exitCode).toBe(2);
    expect(errorOf(result.stderr)).toMatchObject({ field: 'target.url' });
  });

  it('row 3: three table names that differ after byte 63 are each refused (exit 2)', async () => {
    for (const tail of ['_a', '_b', '_c']) {
      const table = `dw.events_${'x'.repeat(56)}${tail}`;
      const result = await runWorkload(writeWorkload(cluster, base(`long${tail}`, { table })));
      expect(result.exitCode).toBe(2);
      expect(errorOf(result.stderr)).toMatchObject({
        field: 'target.table',
        message: expect.stringMatching(/63 bytes/),
      });
    }
  });

  it('row 8: a missing target table is OBJECT_NOT_FOUND naming target.table; dw.Events is not dw.events', async () => {
    for (const table of ['dw.missing_events', 'dw.Events']) {
      const result = await runWorkload(writeWorkload(cluster, base(`missing-${table}`, { table })));
      expect(result.exitCode).toBe(32);
      expect(errorOf(result.stderr)).toMatchObject({
        code: 'DPONE_OBJECT_NOT_FOUND',
        field: 'target.table',
        hint: expect.stringMatching(/target\.create.*case-sensitive/),
      });
    }
    const [created] = await sql(cluster, 'dw', [
      "SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'dw' AND tablename IN ('missing_events', 'Events')",
    ]);
    expect(created!.rows[0].n).toBe(0);
  });

  it('row 8: target.create creates the missing table with the given types', async () => {
    await sql(cluster, 'dw', ['GRANT CREATE ON SCHEMA dw TO loader']);
    const create = {
      id: 'bigint',
      day: 'date',
      amount: 'double precision',
      n: 'numeric(40,10)',
      ts: 'timestamptz',
      region: 'text',
    };
    const result = await runWorkload(
      writeWorkload(cluster, base('create', { table: 'dw.created_events', create })),
    );
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'committed', rows_written: 3 });
    const [types] = await sql(cluster, 'dw', [
      "SELECT column_name AS c, data_type AS t FROM information_schema.columns WHERE table_name = 'created_events' ORDER BY ordinal_position",
    ]);
    expect(types!.rows).toEqual([
      { c: 'id', t: 'bigint' },
      { c: 'day', t: 'date' },
      { c: 'amount', t: 'double precision' },
      { c: 'n', t: 'numeric' },
      { c: 'ts', t: 'timestamp with time zone' },
      { c: 'region', t: 'text' },
    ]);
  });

  it('row 9: a mistyped partition value writes nothing (exit 32); the corrected value is another intent (22)', async () => {
    const spec = (value: string): WorkloadSpec => ({
      ...base('typo', { table: 'dw.events_text' }),
      source: { user: 'reader', database: 'app', table: 'orders_text' },
      partition: { column: 'day', value },
    });
    const typo = await runWorkload(writeWorkload(cluster, spec('2026-7-18')));
    expect(typo.exitCode).toBe(32);
    expect(errorOf(typo.stderr)).toMatchObject({
      field: 'data.partition.value',
      hint: expect.stringContaining('allow_empty'),
    });
    const [journal] = await sql(cluster, 'ops', [
      `SELECT state, lease_holder FROM dpone_commit_journal WHERE metadata LIKE '%"typo"%'`,
    ]);
    expect(journal!.rows).toEqual([{ state: 'FAILED_PRE_COMMIT', lease_holder: null }]);
    // The partition is part of the intent (issue 30): same identity, another value, refused by name.
    const fixed = await runWorkload(writeWorkload(cluster, spec('2026-07-18')));
    expect(fixed.exitCode).toBe(22);
    expect(errorOf(fixed.stderr)).toMatchObject({ field: 'data.partition.value' });
  });

  it('row 9: on a date column a value the type cannot read is bad input naming data.partition.value', async () => {
    const result = await runWorkload(
      writeWorkload(cluster, { ...base('bad-date'), partition: { column: 'day', value: '2026-13-45' } }),
    );
    expect(result.exitCode).toBe(2);
    expect(errorOf(result.stderr)).toMatchObject({
      field: 'data.partition.value',
      sqlstate: expect.stringMatching(/^22/),
    });
  });
});
