import type { StartedNetwork } from 'testcontainers';
import { disposeAll, ownedEnvironment } from '../dispose-all.ts';
import type { EnvironmentProvider, EnvironmentResult } from '../environment.ts';
import type { EngineServices, EnvironmentServices, ServiceName } from '../services.ts';
import { engineServicesAsked, TOXIPROXY } from '../services.ts';
import type { ProxyEndpoint, ToxiproxyService } from '../toxiproxy-service.ts';
import { probeDockerEngine } from './docker-engine-probe.ts';

/**
 * The Toxiproxy image the docker provider starts (each engine's is in its service entry);
 * docker/compose.yaml uses the same ones.
 */
export const TOXIPROXY_IMAGE = 'ghcr.io/shopify/toxiproxy:2.12.0';

type Network = StartedNetwork;

async function startToxiproxy(network: Network, owned: AsyncDisposable[]): Promise<ToxiproxyService> {
  const { ToxiProxyContainer } = await import('@testcontainers/toxiproxy');
  const toxi = await new ToxiProxyContainer(TOXIPROXY_IMAGE).withNetwork(network).start();
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
 * testcontainers (each engine's image and container from its service entry, and Toxiproxy). It
 * probes the engine first, so without one it answers `unverified` in about two seconds with one line, instead of
 * testcontainers' long retry and stack trace. Containers are not killed mid-run by server faults
 * (those cells are UNVERIFIED here; provider local can).
 */
export async function startDocker(
  engines: EngineServices,
  services: readonly ServiceName[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<EnvironmentResult> {
  const reason = await probeDockerEngine(env);
  if (reason !== null) return { status: 'unverified', reason: `docker provider: ${reason}` };
  const owned: AsyncDisposable[] = [];
  const started: { -readonly [K in keyof EnvironmentServices]: EnvironmentServices[K] } = {};
  const databases: Record<string, string> = {};
  try {
    const { Network } = await import('testcontainers');
    const network = await new Network().start();
    owned.push({ [Symbol.asyncDispose]: async () => void (await network.stop()) });
    if (services.includes(TOXIPROXY)) started.toxiproxy = await startToxiproxy(network, owned);
    for (const name of engineServicesAsked(engines, services)) {
      const { docker } = engines[name]!;
      started[name] = await docker.start(network, owned);
      databases[name] = docker.image;
    }
  } catch {
    await disposeAll(owned);
    return {
      status: 'unverified',
      reason: `docker provider: the engine answered but the containers did not start (${services.join(', ')})`,
    };
  }
  return ownedEnvironment(
    {
      provider: 'docker',
      databases,
      toxiproxy: services.includes(TOXIPROXY) ? TOXIPROXY_IMAGE : null,
      services: started,
    },
    owned,
  );
}

/** The `docker` provider as the harness registry sees it. */
export const provider: EnvironmentProvider = {
  name: 'docker',
  start: ({ env, services, engines }) => startDocker(engines.services, services, env),
};
