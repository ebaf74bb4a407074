import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PoolMode } from './harness/env/pgbouncer.ts';
import { LocalPgBouncer, findPgBouncer } from './harness/env/pgbouncer.ts';
import { dpone } from '../../src/cli/commands/example-workload.test-support.ts';
import { binaries, sql } from './fixtures/postgres-team-cluster.ts';
import { LocalPostgresCluster } from './harness/env/postgres-cluster.ts';

/**
 * Issue 28, cases 1 and 4, through the CLI against a real PostgreSQL behind a real PgBouncer
 * (Debian's 1.18), in session and transaction pooling, configured as teams often do
 * (ignore_startup_parameters). The role carries DateStyle 'SQL, DMY', extra_float_digits 0 and an
 * odd TimeZone on source and target: values must arrive exactly. The journal behind transaction
 * pooling takes six concurrent runs of one operation: one write, no exit 10, no lease kept.
 */
const bouncer = findPgBouncer();
const unverified = (binaries.postgresBin === null || bouncer === null) && process.env.CI !== 'true';
if (unverified) console.warn('UNVERIFIED dpone run behind PgBouncer: no PostgreSQL binaries or no pgbouncer');

let cluster: LocalPostgresCluster;
const poolers = new Map<PoolMode, LocalPgBouncer>();
const dirs: string[] = [];

/** What the values are, read the same way on both sides (ISO, UTC, shortest-exact floats). */
const CANONICAL = [
  "SET DateStyle = 'ISO, MDY'",
  'SET extra_float_digits = 3',
  "SET TimeZone = 'UTC'",
  "SET IntervalStyle = 'postgres'",
];

async function rows(database: string, table: string): Promise<unknown[]> {
  const select = `SELECT id, day::text, ratio::text, placed_at::text, span::text FROM ${table} ORDER BY id`;
  return (await sql(cluster, database, [...CANONICAL, select])).at(-1)!.rows;
}

function workload(mode: PoolMode, id: string, table: string): string {
  const at = poolers.get(mode)!;
  const base = `postgres://${cluster.user}@${at.host}:${at.port}`;
  const dir = mkdtempSync(join(tmpdir(), 'dpone-pooler-'));
  dirs.push(dir);
  const file = join(dir, 'workload.yaml');
  const document = {
    identity: {
      release_id: 'r1',
      deployment_id: 'staging',
      dag_id: 'pooler',
      dag_run_logical_identity: `scheduled__${id}`,
      workload_id: id,
      mapped_partition_identity: 'day',
      canonical_interval: { start: '2026-07-03T00:00:00Z', end: '2026-07-04T00:00:00Z' },
      canonical_target_identity: `postgres:dw.public.${table}`,
    },
    intent: {
      pack_fingerprint: 'p1',
      normalized_load_strategy: 'replace-partition',
      source_snapshot_or_partition_identity: 'orders/day',
      target_contract: table,
      schema_fingerprint: 's1',
    },
    route: 'postgres',
    source: { url: `${base}/app?query_timeout_ms=8000`, table: 'orders', password_env: 'PW' },
    target: { url: `${base}/dw?query_timeout_ms=8000`, table, password_env: 'PW' },
    data: {
      columns: ['id', 'day', 'ratio', 'placed_at', 'span'],
      natural_key: ['id'],
      partition: { column: 'day', value: '2026-07-03' },
    },
    journal: `${base}/ops?schema=jr`,
    execution: { lease_ttl_ms: 30000, state_dir: 'state' },
  };
  writeFileSync(file, JSON.stringify(document));
  return file;
}

const run = (file: string, env: Record<string, string> = {}) =>
  dpone(['run', '--workload', file, '--json'], {
    cwd: tmpdir(),
    env: { PW: cluster.password, DPONE_JOURNAL_PASSWORD: cluster.password, ...env },
  });

const TYPES = 'id bigint, day date, ratio float8, placed_at timestamptz, span interval';

describe.skipIf(unverified)('dpone run behind PgBouncer (live, CLI)', () => {
  beforeAll(async () => {
    cluster = await LocalPostgresCluster.start({ bin: binaries.postgresBin ?? '' });
    await sql(cluster, 'postgres', ['CREATE DATABASE app', 'CREATE DATABASE dw', 'CREATE DATABASE ops']);
    for (const database of ['app', 'dw'])
      await sql(cluster, 'postgres', [
        `ALTER ROLE ${cluster.user} IN DATABASE ${database} SET DateStyle = 'SQL, DMY'`,
        `ALTER ROLE ${cluster.user} IN DATABASE ${database} SET extra_float_digits = 0`,
        `ALTER ROLE ${cluster.user} IN DATABASE ${database} SET TimeZone = 'Asia/Kathmandu'`,
        `ALTER ROLE ${cluster.user} IN DATABASE ${database} SET IntervalStyle = 'sql_standard'`,
      ]);
    await sql(cluster, 'app', [
      `CREATE TABLE orders (${TYPES})`,
      "INSERT INTO orders SELECT g, '2026-07-03', g / 3.0, timestamptz '2026-07-03 23:30:00.123456+00' + g * interval '1 second', " +
        "interval '1 day 02:03:04.5' * g FROM generate_series(1, 500) g",
    ]);
    await sql(cluster, 'dw', [
      'CREATE TABLE events_session (' + TYPES + ')',
      'CREATE TABLE events_transaction (' + TYPES + ')',
      `CREATE TABLE events_race (${TYPES})`,
      `CREATE TABLE events_trusting (${TYPES})`,
    ]);
    await sql(cluster, 'ops', ['CREATE SCHEMA jr']);
    for (const mode of ['session', 'transaction'] as const)
      poolers.set(
        mode,
        await LocalPgBouncer.start({
          binary: bouncer!,
          mode,
          upstream: { host: cluster.host, port: cluster.port },
          user: cluster.user,
          password: cluster.password,
        }),
      );
  });
  afterAll(async () => {
    for (const pooler of poolers.values()) await pooler[Symbol.asyncDispose]();
    await cluster?.[Symbol.asyncDispose]();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it.each(['session', 'transaction'] as const)(
    '%s pooling: committed, and every value equals the source whatever the role’s DateStyle, float digits and TimeZone',
    async (mode) => {
      const result = await run(workload(mode, `values-${mode}`, `events_${mode}`));
      expect(result.exitCode, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ status: 'committed', rows_written: 500 });
      expect(await rows('dw', `events_${mode}`)).toEqual(await rows('app', 'orders'));
    },
  );

  it('a session that trusts startup parameters (the unsafe variant) loads other values without an error', async () => {
    const result = await run(workload('transaction', 'values-trusting', 'events_trusting'), {
      DPONE_HARNESS: '1',
      DPONE_UNSAFE_VARIANT: 'trusts-startup-parameters',
    });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(await rows('dw', 'events_trusting')).not.toEqual(await rows('app', 'orders'));
  });

  it('the journal behind transaction pooling: six concurrent runs, one write, none exits 10, no lease kept', async () => {
    const file = workload('transaction', 'race', 'events_race');
    const results = await Promise.all(Array.from({ length: 6 }, () => run(file)));
    const codes = results.map((result) => result.exitCode);
    expect(codes.filter((code) => code === 10)).toEqual([]);
    const outcomes = results
      .filter((result) => result.exitCode === 0)
      .map((result) => JSON.parse(result.stdout) as { status: string; mutated: boolean });
    expect(outcomes.filter((outcome) => outcome.mutated)).toHaveLength(1);
    for (const code of codes) expect([0, 13]).toContain(code);
    const id = (
      JSON.parse(results.find((result) => result.exitCode === 0)!.stdout) as { operation_id: string }
    ).operation_id;
    const [journal] = await sql(cluster, 'ops', [
      `SELECT state FROM jr.dpone_commit_journal WHERE operation_id = '${id}'`,
    ]);
    expect(journal!.rows).toEqual([{ state: 'COMPLETE' }]);
    expect(await rows('dw', 'events_race')).toEqual(await rows('app', 'orders'));
  });
});
