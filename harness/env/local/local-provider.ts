import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DatabaseSync } from 'node:sqlite';
import { disposeAll } from '../dispose-all.ts';
import type { ClickHouseService } from '../../../connectors/clickhouse/harness/env/clickhouse-endpoint.ts';
import { clickhouseHttp } from '../../../connectors/clickhouse/harness/env/clickhouse-endpoint.ts';
import type { EnvironmentProvider, EnvironmentResult, StartedEnvironment } from '../environment.ts';
import { createCellsDatabase } from '../../../connectors/postgres/harness/env/postgres-admin.ts';
import type {
  ControllablePostgres,
  PostgresService,
} from '../../../connectors/postgres/harness/env/postgres-services.ts';
import type { EnvironmentServices, ServiceName } from '../services.ts';
import type { ToxiproxyService } from '../toxiproxy-service.ts';
import {
  CLICKHOUSE_USERS,
  ClickHouseServer,
  findClickHouseServer,
} from '../../../connectors/clickhouse/harness/env/clickhouse-server.ts';
import { findLocalBinaries } from './local-binaries.ts';
import { localToxiproxyService } from './local-toxiproxy-service.ts';
import { LocalPostgresCluster } from '../../../connectors/postgres/harness/env/postgres-cluster.ts';
import { LocalToxiproxyServer } from './toxiproxy-server.ts';
import type { PoolMode } from '../../../connectors/postgres/harness/env/pgbouncer.ts';
import {
  LocalPgBouncer,
  PGBOUNCER_MISSING,
  findPgBouncer,
} from '../../../connectors/postgres/harness/env/pgbouncer.ts';

const run = promisify(execFile);
const CELLS_DATABASE = 'dpone_cells';

/** SQL Server has no package for this platform: the local provider cannot own one. */
export const NO_LOCAL_MSSQL =
  'SQL Server cannot run on this machine (no package for it here): use --provider docker (a Docker engine), or --provider external with DPONE_MSSQL_URL and DPONE_MSSQL_PASSWORD';

function asControllable(cluster: LocalPostgresCluster): ControllablePostgres {
  return Object.assign(cluster, { adminDatabase: 'postgres', proxyUpstream: `127.0.0.1:${cluster.port}` });
}

/** Which of the asked services this machine lacks a binary for, one line each (checked before starting anything). */
export function missingLocal(services: readonly ServiceName[], env: NodeJS.ProcessEnv): string[] {
  const binaries = findLocalBinaries(env);
  const missing: string[] = [];
  if (services.includes('mssql')) missing.push(NO_LOCAL_MSSQL);
  if (services.includes('postgres') && binaries.postgresBin === null) missing.push(binaries.missing[0]!);
  if (services.includes('toxiproxy') && binaries.toxiproxyServer === null)
    missing.push(binaries.missing.at(-1)!);
  if (services.includes('clickhouse') && findClickHouseServer(env) === null)
    missing.push(
      'ClickHouse server binary not found (apt-get install clickhouse-server, or $DPONE_CLICKHOUSE_SERVER)',
    );
  return missing;
}

async function startClickHouse(binary: string, owned: AsyncDisposable[]): Promise<ClickHouseServer> {
  const server = await ClickHouseServer.start({ binary });
  owned.push(server);
  return server;
}

function clickhouseService(
  server: ClickHouseServer,
  binary: string,
  owned: AsyncDisposable[],
): ClickHouseService {
  const worker = (s: ClickHouseServer) => ({ user: CLICKHOUSE_USERS.writer, password: s.password });
  return {
    admin: server.admin,
    worker: worker(server),
    proxyUpstream: `127.0.0.1:${server.httpPort}`,
    dedicated: async () => {
      const extra = await startClickHouse(binary, owned);
      return Object.assign(extra, { worker: worker(extra), proxyUpstream: `127.0.0.1:${extra.httpPort}` });
    },
  };
}

/**
 * The `local` provider: starts, from the binaries on this machine, exactly the services the route
 * needs — a throw-away PostgreSQL cluster, a ClickHouse server, a Toxiproxy server — on free
 * 127.0.0.1 ports, and stops them on dispose. A missing binary (or SQL Server, which cannot run
 * here) gives `unverified` with one line per missing part before anything starts.
 */
export async function startLocal(
  services: readonly ServiceName[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<EnvironmentResult> {
  const missing = missingLocal(services, env);
  if (missing.length > 0) return { status: 'unverified', reason: `local provider: ${missing.join('; ')}` };
  const binaries = findLocalBinaries(env);
  const owned: AsyncDisposable[] = [];
  const started: { -readonly [K in keyof EnvironmentServices]: EnvironmentServices[K] } = {};
  const databases: Record<string, string> = { sqlite: sqliteVersion() };
  let toxiVersion: string | null = null;
  try {
    if (services.includes('toxiproxy')) {
      const toxi = await LocalToxiproxyServer.start(binaries.toxiproxyServer!);
      owned.push(toxi);
      const service: ToxiproxyService = localToxiproxyService(toxi);
      started.toxiproxy = service;
      toxiVersion = await toxi.version();
    }
    if (services.includes('postgres')) {
      const bin = binaries.postgresBin!;
      const cluster = asControllable(await LocalPostgresCluster.start({ bin }));
      owned.push(cluster);
      databases.postgres = (await run(join(bin, 'postgres'), ['--version'])).stdout.trim();
      // The whole cluster is thrown away on dispose, and the database with it.
      await createCellsDatabase(cluster, CELLS_DATABASE);
      const service: PostgresService = {
        server: cluster,
        cellsDatabase: CELLS_DATABASE,
        dedicated: async () => {
          const extra = asControllable(await LocalPostgresCluster.start({ bin }));
          owned.push(extra);
          return extra;
        },
        dedicatedAt: async (dataDir, settings) => {
          const extra = asControllable(await LocalPostgresCluster.start({ bin, dataDir, settings }));
          owned.push(extra);
          return extra;
        },
        ...localPooler(cluster, env, owned),
      };
      started.postgres = service;
    }
    if (services.includes('clickhouse')) {
      const binary = findClickHouseServer(env)!;
      const server = await startClickHouse(binary, owned);
      databases.clickhouse = (
        await clickhouseHttp(server.admin, 'SELECT version()', 'read its version')
      ).trim();
      started.clickhouse = clickhouseService(server, binary, owned);
    }
  } catch {
    await disposeAll(owned);
    return {
      status: 'unverified',
      reason: `local provider: a server did not start (${services.join(', ')})`,
    };
  }
  const environment: StartedEnvironment = {
    provider: 'local',
    databases,
    toxiproxy: toxiVersion,
    services: started,
    [Symbol.asyncDispose]: () => disposeAll(owned),
  };
  return { status: 'started', environment };
}

/** PgBouncer per pool mode in front of the run's server, started on first use (pooler lane cells). */
function localPooler(
  cluster: ControllablePostgres,
  env: NodeJS.ProcessEnv,
  owned: AsyncDisposable[],
): Pick<PostgresService, 'pooler' | 'poolerMissing'> {
  const binary = findPgBouncer(env);
  if (binary === null) return { poolerMissing: PGBOUNCER_MISSING };
  const started = new Map<PoolMode, Promise<LocalPgBouncer>>();
  return {
    pooler: async (mode) => {
      let bouncer = started.get(mode);
      if (!bouncer) {
        bouncer = LocalPgBouncer.start({
          binary,
          mode,
          upstream: { host: cluster.host, port: cluster.port },
          user: cluster.user,
          password: cluster.password,
        }).then((b) => (owned.push(b), b));
        started.set(mode, bouncer);
      }
      const { host, port } = await bouncer;
      return { host, port, mode };
    },
  };
}

function sqliteVersion(): string {
  const db = new DatabaseSync(':memory:');
  try {
    return (db.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v;
  } finally {
    db.close();
  }
}

/** The `local` provider as the harness registry sees it. */
export const provider: EnvironmentProvider = {
  name: 'local',
  start: ({ env, services }) => startLocal(services, env),
};
