import type { EnvironmentProvider } from '../environment.ts';
import { asEnvironment } from '../postgres-services.ts';
import { randomBytes } from 'node:crypto';
import { disposeAll } from '../dispose-all.ts';
import { createCellsDatabase } from '../postgres-admin.ts';
import type {
  PostgresServices,
  ProvisionResult,
  ProxyEndpoint,
  ToxiproxyService,
} from '../postgres-services.ts';
import { probeDockerEngine } from './docker-engine-probe.ts';

/** Images the docker provider starts; docker/compose.yaml uses the same ones. */
export const DOCKER_IMAGES = {
  postgres: 'postgres:15',
  toxiproxy: 'ghcr.io/shopify/toxiproxy:2.12.0',
} as const;

/**
 * The `docker` provider: PostgreSQL and Toxiproxy containers on one network through
 * testcontainers. It probes the engine first, so without one it answers `unverified` in about
 * two seconds with one line, instead of testcontainers' long retry and stack trace.
 */
export async function provisionDocker(env: NodeJS.ProcessEnv = process.env): Promise<ProvisionResult> {
  const reason = await probeDockerEngine(env);
  if (reason !== null) return { status: 'unverified', reason: `docker provider: ${reason}` };
  const owned: AsyncDisposable[] = [];
  try {
    const { Network } = await import('testcontainers');
    const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
    const { ToxiProxyContainer } = await import('@testcontainers/toxiproxy');
    const network = await new Network().start();
    owned.push({ [Symbol.asyncDispose]: async () => void (await network.stop()) });
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
    const toxi = await new ToxiProxyContainer(DOCKER_IMAGES.toxiproxy).withNetwork(network).start();
    owned.push({ [Symbol.asyncDispose]: async () => void (await toxi.stop()) });
    const toxiproxy: ToxiproxyService = {
      apiUrl: `http://${toxi.getHost()}:${toxi.getMappedPort(8474)}`,
      version: () => toxi.client.getVersion(),
      async createProxy(name: string, upstream: string): Promise<ProxyEndpoint> {
        const created = await toxi.createProxy({ name, upstream });
        return { name, host: created.host, port: created.port };
      },
    };
    const postgres = {
      host: pg.getHost(),
      port: pg.getPort(),
      user: 'dpone',
      password,
      adminDatabase: 'dpone',
      proxyUpstream: 'postgres:5432',
    };
    // The container is thrown away on dispose, and the database with it.
    await createCellsDatabase(postgres, 'dpone_cells');
    const services: PostgresServices = {
      provider: 'docker',
      postgres,
      cellsDatabase: 'dpone_cells',
      toxiproxy,
      versions: { postgres: DOCKER_IMAGES.postgres, toxiproxy: DOCKER_IMAGES.toxiproxy },
      async [Symbol.asyncDispose]() {
        await disposeAll(owned);
      },
    };
    return { status: 'started', services };
  } catch {
    await disposeAll(owned);
    return {
      status: 'unverified',
      reason: 'docker provider: the engine answered but the containers did not start',
    };
  }
}

/** The `docker` provider as the harness registry sees it. */
export const provider: EnvironmentProvider = {
  name: 'docker',
  start: async ({ env }) => asEnvironment(await provisionDocker(env)),
};
