import type { LocalPostgresCluster } from './harness/env/postgres-cluster.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkloadSpec } from './fixtures/postgres-team-cluster.ts';
import {
  errorOf,
  removeWorkloads,
  password,
  runWorkload,
  sql,
  startTeamCluster,
  unverifiedLive,
  writeWorkload,
} from './fixtures/postgres-team-cluster.ts';

/**
 * Issue 17, rows 4 and 5 (and issue 28's missing partition and row-level security), through the
 * CLI against a real PostgreSQL with PG15 defaults: each
 * permanent cause gets its own non-retry exit code with the SQLSTATE and a hint naming what to
 * fix; nothing lands; several roles share a database once a DBA set the fence up.
 */
const unverified = unverifiedLive('dpone run on PostgreSQL (errors by cause)');

let cluster: LocalPostgresCluster;
const COLUMNS = ['id', 'day', 'amount', 'region'];
const TYPES = 'id bigint, day date, amount text, region text';

const spec = (id: string, target: Partial<WorkloadSpec['target']> = {}, source = 'orders'): WorkloadSpec => ({
  id,
  source: { user: 'reader', database: 'app', table: source },
  target: { user: 'loader', database: 'dw', table: 'dw.events', schema: 'dw', ...target },
  columns: COLUMNS,
  partition: { column: 'day', value: '2026-07-05' },
});

async function count(table: string): Promise<number> {
  const [result] = await sql(cluster, 'dw', [`SELECT count(*)::int AS n FROM ${table}`]);
  return result!.rows[0].n as number;
}

async function journalState(id: string): Promise<string | undefined> {
  const [result] = await sql(cluster, 'ops', [
    `SELECT state FROM dpone_commit_journal WHERE metadata LIKE '%"${id}"%'`,
  ]);
  return result!.rows[0]?.state as string | undefined;
}

/** Runs, and checks the error is the cause's, with the SQLSTATE and no secret in any output. */
async function refused(workload: WorkloadSpec, exitCode: number, env: Record<string, string> = {}) {
  const result = await runWorkload(writeWorkload(cluster, workload), env, workload);
  expect(result.exitCode).toBe(exitCode);
  expect(result.stdout).toBe('');
  expect(result.stderr).not.toMatch(/pw-4711|nope|INSERT INTO|SELECT /);
  return errorOf(result.stderr);
}

describe.skipIf(unverified)('dpone run on PostgreSQL: errors by cause (live, CLI)', () => {
  beforeAll(async () => {
    cluster = await startTeamCluster();
    await sql(cluster, 'app', [
      `CREATE TABLE orders (${TYPES})`,
      "INSERT INTO orders VALUES (1, '2026-07-05', '1.5', 'eu'), (2, '2026-07-05', '2', NULL)",
      'GRANT SELECT ON orders TO reader',
    ]);
    await sql(cluster, 'dw', [
      `CREATE TABLE dw.events (${TYPES})`,
      `CREATE TABLE public.events (${TYPES})`,
      'CREATE TABLE dw.events_int (id bigint, day date, amount integer, region text)',
      'CREATE TABLE dw.events_nn (id bigint, day date, amount text, region text NOT NULL)',
      'CREATE TABLE dw.events_pk (id bigint PRIMARY KEY, day date, amount text, region text)',
      "INSERT INTO dw.events_pk VALUES (1, '2026-07-04', 'old', 'eu')",
      'GRANT SELECT, INSERT, DELETE ON dw.events, public.events, dw.events_int, dw.events_nn, dw.events_pk TO loader',
      // Issue 28: a partitioned target without the day's partition, and a table with row-level security.
      `CREATE TABLE dw.events_part (${TYPES}) PARTITION BY RANGE (day)`,
      "CREATE TABLE dw.events_part_0701 PARTITION OF dw.events_part FOR VALUES FROM ('2026-07-01') TO ('2026-07-02')",
      `CREATE TABLE dw.events_rls (${TYPES})`,
      'ALTER TABLE dw.events_rls ENABLE ROW LEVEL SECURITY',
      'CREATE POLICY anyone ON dw.events_rls USING (true) WITH CHECK (true)',
      'GRANT SELECT, INSERT, DELETE ON dw.events_part, dw.events_rls TO loader',
      // A fence a DBA created but granted without UPDATE.
      'CREATE SCHEMA dw2',
      'GRANT USAGE ON SCHEMA dw2 TO loader',
      'CREATE TABLE dw2._dpone_fence (LIKE dw._dpone_fence INCLUDING ALL)',
      'GRANT SELECT, INSERT ON dw2._dpone_fence TO loader',
      `CREATE TABLE dw2.events (${TYPES})`,
      'GRANT SELECT, INSERT, DELETE ON dw2.events TO loader',
    ]);
  });
  afterAll(async () => {
    removeWorkloads();
    await cluster?.[Symbol.asyncDispose]();
  });

  it('PG15 default (no CREATE on public): exit 31 naming the privilege the fence needs', async () => {
    const error = await refused(spec('no-create', { table: 'public.events', schema: undefined }), 31);
    expect(error).toMatchObject({
      code: 'DPONE_PERMISSION_DENIED',
      sqlstate: '42501',
      hint: expect.stringMatching(
        /CREATE on schema public to create the fence table public\._dpone_fence.*setup\.sql/,
      ),
    });
  });

  it('a role without UPDATE on the fence: exit 31 naming the fence grants', async () => {
    const error = await refused(spec('no-update', { table: 'dw2.events', schema: 'dw2' }), 31);
    expect(error).toMatchObject({
      sqlstate: '42501',
      hint: expect.stringContaining('SELECT, INSERT and UPDATE on the fence table'),
    });
    expect(await count('dw2.events')).toBe(0);
  });

  it('wrong passwords: target, source and journal each exit 30 with the variable to check', async () => {
    const target = await refused(spec('bad-target-pw'), 30, { TGT_PW: 'nope' });
    expect(target).toMatchObject({ sqlstate: '28P01', hint: expect.stringContaining('target.password_env') });
    const source = await refused(spec('bad-source-pw'), 30, { SRC_PW: 'nope' });
    expect(source).toMatchObject({ sqlstate: '28P01', hint: expect.stringContaining('source.password_env') });
    expect(await journalState('bad-source-pw')).toBe('FAILED_PRE_COMMIT');
    const journal = await refused(spec('bad-journal-pw'), 30, { DPONE_JOURNAL_PASSWORD: 'nope' });
    expect(journal).toMatchObject({
      sqlstate: '28P01',
      hint: expect.stringContaining('DPONE_JOURNAL_PASSWORD'),
    });
  });

  it('a wrong-case source table: exit 32, names are case-sensitive', async () => {
    const error = await refused(spec('wrong-case', {}, 'Orders'), 32);
    expect(error).toMatchObject({
      sqlstate: '42P01',
      hint: expect.stringMatching(/source\.table does not exist.*case-sensitive/),
    });
  });

  it.each([
    ['a type mismatch', 'dw.events_int', '22P02'],
    ['a NOT NULL violation', 'dw.events_nn', '23502'],
    ['a unique violation', 'dw.events_pk', '23505'],
  ])('%s: exit 33 once the fence proved nothing landed', async (_what, table, sqlstate) => {
    const before = await count(table);
    const id = `rejected-${table}`;
    const error = await refused(spec(id, { table }), 33);
    expect(error).toMatchObject({ code: 'DPONE_DATA_REJECTED', sqlstate, state: 'PREPARED' });
    expect(String(error.message)).toMatch(/the fence proved nothing landed/);
    expect(await count(table)).toBe(before);
    // The refused run hands the operation back (FAILED_PRE_COMMIT, lease released): a fixed retry goes ahead.
    expect(await journalState(id)).toBe('FAILED_PRE_COMMIT');
  });

  it('a partitioned target without the day’s partition: exit 33 (23514) naming the partition, not a retry', async () => {
    const error = await refused(spec('no-partition', { table: 'dw.events_part' }), 33);
    expect(error).toMatchObject({
      code: 'DPONE_DATA_REJECTED',
      sqlstate: '23514',
      state: 'PREPARED',
      hint: expect.stringMatching(/no partition of target\.table takes the rows/),
    });
    expect(await count('dw.events_part')).toBe(0);
  });

  it('a target whose row-level security refuses COPY: exit 31 (0A000) naming row-level security', async () => {
    const error = await refused(spec('rls', { table: 'dw.events_rls' }), 31);
    expect(error).toMatchObject({
      code: 'DPONE_PERMISSION_DENIED',
      sqlstate: '0A000',
      hint: expect.stringMatching(/row-level security/),
    });
    expect(await count('dw.events_rls')).toBe(0);
  });

  it('a missing DPONE_JOURNAL_PASSWORD is exit 2 before any I/O', async () => {
    const error = await refused(spec('no-journal-pw'), 2, {
      DPONE_JOURNAL_PASSWORD: undefined as unknown as string,
    });
    expect(error).toMatchObject({ code: 'DPONE_INVALID_INPUT', field: 'DPONE_JOURNAL_PASSWORD' });
    expect(await journalState('no-journal-pw')).toBeUndefined();
  });

  it('row 5: two roles share a database once a DBA owns the fence; without that the second gets exit 31', async () => {
    await sql(cluster, 'dw', [
      'CREATE SCHEMA shared',
      'GRANT USAGE, CREATE ON SCHEMA shared TO team_a, team_b',
      ...['a', 'b'].flatMap((team) => [
        `CREATE TABLE shared.events_${team} (${TYPES})`,
        `CREATE TABLE dw.events_${team} (${TYPES})`,
        `GRANT SELECT, INSERT, DELETE ON shared.events_${team}, dw.events_${team} TO team_${team}`,
      ]),
      'GRANT SELECT ON ALL TABLES IN SCHEMA public TO team_a',
    ]);
    await sql(cluster, 'app', ['GRANT SELECT ON orders TO team_a, team_b']);
    const team = (name: 'team_a' | 'team_b', schema: string, id: string): WorkloadSpec => ({
      ...spec(id, { user: name, table: `${schema}.events_${name.slice(-1)}`, schema }),
      source: { user: name, database: 'app', table: 'orders' },
    });
    // Without the DBA's setup: the first role to run creates (and owns) shared._dpone_fence.
    const first = await runWorkload(
      writeWorkload(cluster, team('team_a', 'shared', 'a1')),
      {},
      team('team_a', 'shared', 'a1'),
    );
    expect(JSON.parse(first.stdout)).toMatchObject({ status: 'committed' });
    const second = await refused(team('team_b', 'shared', 'b1'), 31, {
      SRC_PW: password('team_b'),
      TGT_PW: password('team_b'),
    });
    expect(second).toMatchObject({
      sqlstate: '42501',
      hint: expect.stringMatching(/fence table.*setup\.sql/),
    });
    // With it (dw._dpone_fence created by the DBA and granted to both): both commit.
    for (const name of ['team_a', 'team_b'] as const) {
      const workload = team(name, 'dw', `${name}-dw`);
      const result = await runWorkload(writeWorkload(cluster, workload), {}, workload);
      expect(JSON.parse(result.stdout)).toMatchObject({ status: 'committed', rows_written: 2 });
    }
  });
});
