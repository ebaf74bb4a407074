import type { StartedNetwork } from 'testcontainers';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { ClickHouseService } from './clickhouse-endpoint.ts';

type Network = StartedNetwork;

/** docker/clickhouse/part-log.xml: the server logs parts, which the inspector counts landings from. */
const PART_LOG_XML = fileURLToPath(new URL('../../../../docker/clickhouse/part-log.xml', import.meta.url));

/** A current ClickHouse as a container (same image and part_log config as docker/compose.yaml). */
export async function startClickHouseContainer(
  image: string,
  network: Network,
  owned: AsyncDisposable[],
): Promise<ClickHouseService> {
  const { GenericContainer, Wait } = await import('testcontainers');
  const password = randomBytes(18).toString('hex');
  const container = await new GenericContainer(image)
    .withNetwork(network)
    .withNetworkAliases('clickhouse')
    .withEnvironment({
      CLICKHOUSE_USER: 'dpone',
      CLICKHOUSE_PASSWORD: password,
      CLICKHOUSE_DEFAULT_ACCESS_MANAGEMENT: '1',
    })
    .withCopyFilesToContainer([
      { source: PART_LOG_XML, target: '/etc/clickhouse-server/config.d/part-log.xml' },
    ])
    .withExposedPorts(8123)
    .withWaitStrategy(Wait.forHttp('/ping', 8123))
    .start();
  owned.push({ [Symbol.asyncDispose]: async () => void (await container.stop()) });
  const login = { user: 'dpone', password };
  return {
    admin: { host: container.getHost(), httpPort: container.getMappedPort(8123), ...login },
    worker: login,
    proxyUpstream: 'clickhouse:8123',
  };
}
