import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';
import { probeDockerEngine } from '../env/docker/docker-engine-probe.ts';
import { EXTERNAL_ENV } from '../env/external/external-provider.ts';
import { POSTGRES_ENV } from '../../connectors/postgres/harness/env/postgres-services.ts';
import { findClickHouseServer } from '../../connectors/clickhouse/harness/env/clickhouse-server.ts';
import { findPgBouncer } from '../../connectors/postgres/harness/env/pgbouncer.ts';
import { findLocalBinaries } from '../env/local/local-binaries.ts';
import { probeAirflow } from './airflow-probe.ts';
import type { ComponentId } from '../env/install-hints.ts';
import { INSTALL } from '../env/install-hints.ts';

export type { ComponentId };

/** One thing a route, a provider or the test suite needs, as found on this machine. */
export interface Component {
  readonly id: ComponentId;
  readonly name: string;
  readonly present: boolean;
  /** What was found (version, path) or why it is missing: safe text, no credentials. */
  readonly detail: string;
  /** The command that installs it here, or what to do when nothing here can install it. */
  readonly install: string;
}

export const MINIMUM_NODE = [22, 22] as const;
export const CHROMIUM = '/usr/bin/chromium';
const PROBE_TIMEOUT_MS = 3_000;

export interface ProbeContext {
  readonly env: NodeJS.ProcessEnv;
  /** The running Node's version (`process.versions.node`); a parameter so tests can vary it. */
  readonly nodeVersion: string;
  readonly isRoot: boolean;
}

/** First line of `binary args…`, or null when it does not answer within the timeout. */
function firstLine(binary: string, args: readonly string[]): Promise<string | null> {
  return new Promise((resolve) => {
    execFile(binary, [...args], { timeout: PROBE_TIMEOUT_MS, encoding: 'utf8' }, (error, stdout) => {
      const line = String(stdout ?? '')
        .split('\n')
        .find((candidate) => candidate.trim() !== '');
      resolve(error && !line ? null : (line?.trim() ?? null));
    });
  });
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function component(
  id: ComponentId,
  name: string,
  present: boolean,
  detail: string,
  install: string,
): Component {
  return { id, name, present, detail, install };
}

export function nodeSupported(version: string): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major > MINIMUM_NODE[0] || (major === MINIMUM_NODE[0] && minor >= MINIMUM_NODE[1]);
}

async function nodeAndSqlite(context: ProbeContext): Promise<Component[]> {
  const ok = nodeSupported(context.nodeVersion);
  const node = component(
    'node',
    'Node.js >= 22.22',
    ok,
    `v${context.nodeVersion} (${process.execPath})`,
    INSTALL.node,
  );
  let sqlite = 'node:sqlite is not available in this Node';
  let hasSqlite = false;
  if (ok) {
    try {
      const { DatabaseSync } = await import('node:sqlite');
      const db = new DatabaseSync(':memory:');
      sqlite = `SQLite ${(db.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v} (node:sqlite)`;
      db.close();
      hasSqlite = true;
    } catch {
      // stays missing
    }
  }
  return [node, component('sqlite', 'SQLite (node:sqlite)', hasSqlite, sqlite, INSTALL.sqlite)];
}

async function postgresTools(context: ProbeContext): Promise<Component[]> {
  const found = findLocalBinaries(context.env);
  const pgVersion = found.postgresBin
    ? await firstLine(join(found.postgresBin, 'pg_ctl'), ['--version'])
    : null;
  const toxiVersion = found.toxiproxyServer ? await firstLine(found.toxiproxyServer, ['--version']) : null;
  const postgresUser = context.isRoot ? await firstLine('id', ['-u', 'postgres']) : 'not needed';
  const pgbouncer = findPgBouncer(context.env);
  const bouncerVersion = pgbouncer ? await firstLine(pgbouncer, ['--version']) : null;
  return [
    component(
      'postgres',
      'PostgreSQL server (initdb, pg_ctl)',
      pgVersion !== null,
      pgVersion ? `${pgVersion} (${found.postgresBin})` : 'not found in /usr/lib/postgresql/*/bin or on PATH',
      INSTALL.postgres,
    ),
    component(
      'postgres-user',
      'OS user postgres (when root)',
      postgresUser !== null,
      context.isRoot
        ? postgresUser
          ? `uid ${postgresUser}`
          : 'no such user'
        : 'not root: clusters run as you',
      INSTALL['postgres-user'],
    ),
    component(
      'toxiproxy',
      'Toxiproxy server',
      toxiVersion !== null,
      toxiVersion
        ? `${toxiVersion} (${found.toxiproxyServer})`
        : 'not found ($(go env GOPATH)/bin/server, toxiproxy-server)',
      INSTALL.toxiproxy,
    ),
    component(
      'pgbouncer',
      'PgBouncer (the PostgreSQL suite’s pooler lane)',
      bouncerVersion !== null,
      bouncerVersion
        ? `${bouncerVersion} (${pgbouncer})`
        : 'not found (/usr/sbin/pgbouncer, $DPONE_PGBOUNCER)',
      INSTALL.pgbouncer,
    ),
  ];
}

async function otherTools(context: ProbeContext): Promise<Component[]> {
  const clickhouse = findClickHouseServer(context.env);
  const [chVersion, chromium, docker, airflow] = await Promise.all([
    clickhouse ? clickhouseVersion(clickhouse) : Promise.resolve(null),
    executable(CHROMIUM) ? firstLine(CHROMIUM, ['--version']) : Promise.resolve(null),
    probeDockerEngine(context.env, 1_500),
    probeAirflow(context.env),
  ]);
  const external = [POSTGRES_ENV.url, POSTGRES_ENV.password, EXTERNAL_ENV.toxiproxyUrl];
  const unset = external.filter((name) => !context.env[name]);
  return [
    component(
      'clickhouse',
      'ClickHouse server',
      chVersion !== null,
      chVersion
        ? `${chVersion} (${clickhouse})`
        : 'not found (/usr/sbin/clickhouse-server, clickhouse-server on PATH)',
      INSTALL.clickhouse,
    ),
    component(
      'chromium',
      'Chromium',
      chromium !== null,
      chromium ? `${chromium} (${CHROMIUM}), for the HTML report browser test` : `not found at ${CHROMIUM}`,
      INSTALL.chromium,
    ),
    component('docker', 'Docker engine', docker === null, docker ?? 'answers /_ping', INSTALL.docker),
    component(
      'external',
      'your own PostgreSQL + Toxiproxy',
      unset.length === 0,
      unset.length === 0 ? 'all set' : `not set: ${unset.join(', ')}`,
      `export ${POSTGRES_ENV.url}=postgres://user@host:5432/db ${POSTGRES_ENV.password}=… ${EXTERNAL_ENV.toxiproxyUrl}=http://host:8474`,
    ),
    component(
      'mssql',
      'SQL Server',
      Boolean(context.env.DPONE_MSSQL_URL),
      context.env.DPONE_MSSQL_URL
        ? 'DPONE_MSSQL_URL set'
        : 'DPONE_MSSQL_URL not set: MSSQL live checks are UNVERIFIED',
      INSTALL.mssql,
    ),
    component('airflow', 'Airflow venv', airflow.present, airflow.detail, airflow.install),
  ];
}

/** ClickHouse 18.16's server has no --version; its client, installed beside it, has. */
async function clickhouseVersion(server: string): Promise<string> {
  const version =
    (await firstLine(server, ['--version'])) ?? (await firstLine('clickhouse-client', ['--version']));
  return version ?? 'version not reported';
}

/** Probes everything at once; every probe has a timeout, so this takes seconds at most. */
export async function probeComponents(context: ProbeContext): Promise<Component[]> {
  const groups = await Promise.all([nodeAndSqlite(context), postgresTools(context), otherTools(context)]);
  return groups.flat();
}
