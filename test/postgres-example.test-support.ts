import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { withClusterClient } from '../connectors/postgres/fixtures/cluster-client.ts';
import { binaries } from '../connectors/postgres/fixtures/live-cluster.ts';
import type { LocalPostgresCluster } from '../connectors/postgres/harness/env/postgres-cluster.ts';

/**
 * examples/postgres on a throw-away cluster standing in for the newcomer's server, for the live
 * tests that run it: its SQL files through psql, its workload pointed at the cluster, queries.
 */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const EXAMPLE = join(ROOT, 'examples/postgres');

/** The passwords setup.sql gives the example's roles, in the variables `dpone run` reads. */
export interface ExampleSecrets {
  readonly DPONE_SOURCE_PASSWORD: string;
  readonly DPONE_TARGET_PASSWORD: string;
  readonly DPONE_JOURNAL_PASSWORD: string;
}

/** Passwords for the example's three roles, told apart by `prefix` (`<prefix>-source-4711`, …). */
export function exampleSecrets(prefix: string): ExampleSecrets {
  return {
    DPONE_SOURCE_PASSWORD: `${prefix}-source-4711`,
    DPONE_TARGET_PASSWORD: `${prefix}-target-4711`,
    DPONE_JOURNAL_PASSWORD: `${prefix}-journal-4711`,
  };
}

/** One of the example's SQL files through psql, as the cluster's superuser. */
export function psql(cluster: LocalPostgresCluster, file: string, variables: Record<string, string> = {}) {
  const args = [
    '-v',
    'ON_ERROR_STOP=1',
    ...Object.entries(variables).flatMap(([k, v]) => ['-v', `${k}=${v}`]),
  ];
  return execa(join(binaries.postgresBin!, 'psql'), [...args, '-f', join(EXAMPLE, file)], {
    env: {
      PGHOST: cluster.host,
      PGPORT: String(cluster.port),
      PGUSER: cluster.user,
      PGPASSWORD: cluster.password,
      PGDATABASE: 'postgres',
    },
  });
}

/** setup.sql: the example's databases, tables and roles, the roles with these passwords. */
export function setUpExample(cluster: LocalPostgresCluster, secrets: ExampleSecrets) {
  return psql(cluster, 'setup.sql', {
    reader_password: secrets.DPONE_SOURCE_PASSWORD,
    loader_password: secrets.DPONE_TARGET_PASSWORD,
    journal_password: secrets.DPONE_JOURNAL_PASSWORD,
  });
}

/** The example's workload written to `dir`, pointed at the cluster (the README's one edit), then `edit`ed. */
export function exampleWorkload(
  cluster: LocalPostgresCluster,
  dir: string,
  edit: (text: string) => string = (text) => text,
): string {
  const workload = join(dir, 'workload.yaml');
  const text = readFileSync(join(EXAMPLE, 'workload.yaml'), 'utf8');
  writeFileSync(workload, edit(text.replaceAll('localhost:5432', `${cluster.host}:${cluster.port}`)));
  return workload;
}

/** The rows `text` returns on the cluster's `database`. */
export function query(
  cluster: LocalPostgresCluster,
  database: string,
  text: string,
): Promise<Record<string, unknown>[]> {
  return withClusterClient(cluster, database, async (client) => (await client.query(text)).rows);
}

/**
 * `bin/dpone.js` with `args` as the newcomer runs it: in `cwd`, with the example's passwords, and
 * none of the harness's (fault plan, XCom path) or a deployment's (policy) variables set.
 */
export function dponeExample(args: readonly string[], cwd: string, secrets: ExampleSecrets) {
  return execa(process.execPath, [join(ROOT, 'bin/dpone.js'), ...args], {
    cwd,
    reject: false,
    env: {
      ...secrets,
      DPONE_FAULT_PLAN: '',
      DPONE_XCOM_PATH: '',
      DPONE_POLICY: '',
      DPONE_DEPLOYMENT_POLICY: '',
    },
  });
}
