import type { StartedNetwork } from 'testcontainers';
import { randomBytes } from 'node:crypto';
import { disposeAll } from '../dispose-all.ts';
import type { EnvironmentProvider, EnvironmentResult, StartedEnvironment } from '../environment.ts';
import { createCellsDatabase } from '../../../connectors/postgres/harness/env/postgres-admin.ts';
import type { EnvironmentServices, ServiceName } from '../services.ts';
import type { ProxyEndpoint, ToxiproxyService } from '../toxiproxy-service.ts';
import { probeDockerEngine } from './docker-engine-probe.ts';
import { startClickHouseContainer } from './docker-servers.ts';
import { startMssqlContainer } from '../../../connectors/mssql/harness/env/mssql-container.ts';

/** Images the docker provider starts; docker/compose.yaml uses the same ones. */
export const DOCKER_IMAGES = {
  postgres: 'postgres:15',
  toxiproxy: 'ghcr.io/shopify/toxiproxy:2.12.0',
  clickhouse: 'clickhouse/clickhouse-server:25.8',
  mssql: 'mcr.microsoft.com/mssql/server:2022-latest',
} as const;

type Network = StartedNetwork;

async function startPostgres(network: Network, owned: AsyncDisposable[]) {
  const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
  const password = randomBytes(18).toString('hex');
  const pg = await new PostgreSqlContainer(DOCKER_IMAGES.postgres)
    .withNetwork(network)
    .withNetworkAliases('postgres')
    .withUsername('dpone')
    .withPassword(password)
    .withDatabase('dpone')
    .withCommand(['postgres', '-c', 'fsync=on', '-c', 'max_connections=300'])
    .start();
  owned.push({ [Symbol.asyncDispose]: async () => void (await pg.stop()) });
  const server = {
    host: pg.getHost(),
    port: pg.getPort(),
    user: 'dpone',
    password,
    adminDatabase: 'dpone',
    proxyUpstream: 'postgres:5432',
  };
  // The container is thrown away on dispose, and the database with it.
  await createCellsDatabase(server, 'dpone_cells');
  return { server, cellsDatabase: 'dpone_cells' };
}

async function startToxiproxy(network: Network, owned: AsyncDisposable[]): Promise<ToxiproxyService> {
  const { ToxiProxyContainer } = await import('@testcontainers/toxiproxy');
  const toxi = await new ToxiProxyContainer(DOCKER_IMAGES.toxiproxy).withNetwork(network).start();
  owned.push({ [Symbol.asyncDispose]: async () => void (await toxi.stop()) });
  return {
    apiUrl: `http://${toxi.getHost()}:${toxi.getMappedPort(8474)}`,
    version: () => toxi.client.getVersion(),
    async createProxy(name: string, upstream: string): Promise<ProxyEndpoint> {
      const created = await toxi.createProxy({ name, upstream });
      return { name, host: created.host, port: created.port };
    },
  };
}

/**
 * The `docker` provider: the services the route needs as containers on one network through
 * testcontainers (PostgreSQL, a current ClickHouse, SQL Server, Toxiproxy). It probes the engine
 * first, so without one it answers `unverified` in about two seconds with one line, instead of
 * testcontainers' long retry and stack trace. Containers are not killed mid-run by server faults
 * (those cells are UNVERIFIED here; provider local can).
 */
export async function startDocker(
  services: readonly ServiceName[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<EnvironmentResult> {
  const reason = await probeDockerEngine(env);
  if (reason !== null) return { status: 'unverified', reason: `docker provider: ${reason}` };
  const owned: AsyncDisposable[] = [];
  const started: { -readonly [K in ServiceName]?: EnvironmentServices[K] } = {};
  const databases: Record<string, string> = {};
  try {
    const { Network } = await import('testcontainers');
    const network = await new Network().start();
    owned.push({ [Symbol.asyncDispose]: async () => void (await network.stop()) });
    if (services.includes('toxiproxy')) started.toxiproxy = await startToxiproxy(network, owned);
    if (services.includes('postgres')) {
      started.postgres = await startPostgres(network, owned);
      databases.postgres = DOCKER_IMAGES.postgres;
    }
    if (services.includes('clickhouse')) {
      started.clickhouse = await startClickHouseContainer(DOCKER_IMAGES.clickhouse, network, owned);
      databases.clickhouse = DOCKER_IMAGES.clickhouse;
    }
    if (services.includes('mssql')) {
      started.mssql = await startMssqlContainer(DOCKER_IMAGES.mssql, network, owned);
      databases.mssql = DOCKER_IMAGES.mssql;
    }
  } catch {
    await disposeAll(owned);
    return {
      status: 'unverified',
      reason: `docker provider: the engine answered but the containers did not start (${services.join(', ')})`,
    };
  }
  const environment: StartedEnvironment = {
    provider: 'docker',
    databases,
    toxiproxy: services.includes('toxiproxy') ? DOCKER_IMAGES.toxiproxy : null,
    services: started,
    [Symbol.asyncDispose]: () => disposeAll(owned),
  };
  return { status: 'started', environment };
}

/** The `docker` provider as the harness registry sees it. */
export const provider: EnvironmentProvider = {
  name: 'docker',
  start: ({ env, services }) => startDocker(services, env),
};
