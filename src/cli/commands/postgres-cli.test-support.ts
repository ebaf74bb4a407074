import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { stringify } from 'yaml';
import { findLocalBinaries } from '../../../harness/env/local/local-binaries.ts';
import { LocalPostgresCluster } from '../../../harness/env/local/postgres-cluster.ts';
import { dpone } from './example-workload.test-support.ts';

/**
 * A throw-away cluster set up the way a data team has its own: ordinary roles with PG15 defaults (no
 * CREATE on public), a source database `app`, a target database `dw` with a schema `dw` whose fence
 * table a DBA created and granted, and a journal database `ops` owned by its own role. Every role's
 * password is `<role>-pw`; the workloads name them through SRC_PW, TGT_PW and DPONE_JOURNAL_PASSWORD.
 */
export const binaries = findLocalBinaries();
export const unverified = binaries.postgresBin === null && process.env.CI !== 'true';

export const ROLES = ['reader', 'loader', 'journal_rw', 'team_a', 'team_b'] as const;
export type Role = (typeof ROLES)[number];
export const password = (role: string) => `${role}-pw-4711`;

export async function sql(
  cluster: LocalPostgresCluster,
  database: string,
  statements: readonly string[],
  as: { user: string; password: string } = cluster,
): Promise<pg.QueryResult[]> {
  const client = new pg.Client({ host: cluster.host, port: cluster.port, ...as, database });
  await client.connect();
  try {
    const results: pg.QueryResult[] = [];
    for (const text of statements) results.push(await client.query(text));
    return results;
  } finally {
    await client.end();
  }
}

/** The fence table's DDL as a DBA runs it once (the same columns the connector creates). */
export const FENCE_DDL =
  'CREATE TABLE dw._dpone_fence (operation_id TEXT PRIMARY KEY, epoch BIGINT NOT NULL, status TEXT NOT NULL, ' +
  'committed_epoch BIGINT, rows_written BIGINT, updated_at_ms BIGINT NOT NULL)';

export async function startTeamCluster(): Promise<LocalPostgresCluster> {
  const cluster = await LocalPostgresCluster.start({ bin: binaries.postgresBin ?? '' });
  await sql(cluster, 'postgres', [
    ...ROLES.map((role) => `CREATE ROLE ${role} LOGIN PASSWORD '${password(role)}'`),
    'CREATE DATABASE app',
    'CREATE DATABASE dw',
    'CREATE DATABASE ops OWNER journal_rw',
    'GRANT CONNECT ON DATABASE app TO reader',
  ]);
  await sql(cluster, 'dw', [
    'CREATE SCHEMA dw',
    'GRANT USAGE ON SCHEMA dw TO loader, team_a, team_b',
    FENCE_DDL,
    'GRANT SELECT, INSERT, UPDATE ON dw._dpone_fence TO loader, team_a, team_b',
  ]);
  return cluster;
}

export interface Endpoint {
  readonly user: Role;
  readonly database: string;
  readonly table: string;
  /** `?schema=` of the URL. */
  readonly schema?: string;
  readonly create?: Record<string, string>;
}

export interface WorkloadSpec {
  /** workload_id: one operation per test. */
  readonly id: string;
  readonly source: Endpoint;
  readonly target: Endpoint;
  readonly columns: readonly string[];
  readonly partition: { readonly column: string; readonly value: string; readonly allow_empty?: boolean };
  readonly strategy?: 'append' | 'replace-partition';
}

const url = (cluster: LocalPostgresCluster, end: Endpoint, extra = '') =>
  `postgres://${end.user}@${cluster.host}:${cluster.port}/${end.database}` +
  `?connect_timeout_ms=5000${end.schema ? `&schema=${end.schema}` : ''}${extra}`;

/** Writes the workload into a fresh folder and returns its path. */
export function writeWorkload(cluster: LocalPostgresCluster, spec: WorkloadSpec): string {
  const dir = mkdtempSync(join(tmpdir(), 'dpone-pg-cli-'));
  const file = join(dir, 'workload.yaml');
  const day = spec.partition.value;
  writeFileSync(
    file,
    stringify({
      identity: {
        release_id: 'r1',
        deployment_id: 'staging',
        dag_id: 'pg_cli',
        dag_run_logical_identity: 'scheduled__2026-07-05',
        workload_id: spec.id,
        mapped_partition_identity: 'day',
        canonical_interval: { start: '2026-07-05T00:00:00Z', end: '2026-07-06T00:00:00Z' },
        canonical_target_identity: `postgres:${spec.target.database}.${spec.target.table}`,
      },
      intent: {
        pack_fingerprint: 'p1',
        normalized_load_strategy: spec.strategy ?? 'append',
        source_snapshot_or_partition_identity: `${spec.source.table}/day`,
        target_contract: spec.target.table,
        schema_fingerprint: 's1',
      },
      route: 'postgres',
      source: { url: url(cluster, spec.source), table: spec.source.table, password_env: 'SRC_PW' },
      target: {
        url: url(cluster, spec.target),
        table: spec.target.table,
        password_env: 'TGT_PW',
        ...(spec.target.create ? { create: { columns: spec.target.create } } : {}),
      },
      data: {
        columns: spec.columns,
        natural_key: [spec.columns[0]],
        partition: { ...spec.partition, value: day },
      },
      journal: `postgres://journal_rw@${cluster.host}:${cluster.port}/ops`,
      execution: { lease_ttl_ms: 30000, state_dir: 'state' },
    }),
  );
  return file;
}

/** `dpone run --json` on a workload with the roles' passwords in the environment. */
export function runWorkload(file: string, env: Record<string, string> = {}, spec?: WorkloadSpec) {
  return dpone(['run', '--workload', file, '--json'], {
    cwd: tmpdir(),
    env: {
      SRC_PW: password(spec?.source.user ?? 'reader'),
      TGT_PW: password(spec?.target.user ?? 'loader'),
      DPONE_JOURNAL_PASSWORD: password('journal_rw'),
      ...env,
    },
  });
}

/** The `error` object of a failed `--json` run (stderr's JSON line). */
export function errorOf(stderr: string): Record<string, unknown> {
  const line = stderr.split('\n').find((text) => text.startsWith('{"error"'));
  if (!line) throw new Error(`no JSON error on stderr: ${stderr}`);
  return (JSON.parse(line) as { error: Record<string, unknown> }).error;
}
