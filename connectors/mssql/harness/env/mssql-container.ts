import type { StartedNetwork } from 'testcontainers';
import { randomBytes } from 'node:crypto';
import { mssqlAdmin } from './mssql-admin.ts';
import type { MssqlService } from './mssql-service.ts';

type Network = StartedNetwork;

/** SQL Server (Developer edition) as a container, with one database for the run's cells. */
export async function startMssqlContainer(
  image: string,
  network: Network,
  owned: AsyncDisposable[],
): Promise<MssqlService> {
  const { GenericContainer, Wait } = await import('testcontainers');
  // The SA password needs three of: upper, lower, digit, symbol.
  const password = `Dp1-${randomBytes(16).toString('hex')}`;
  const container = await new GenericContainer(image)
    .withNetwork(network)
    .withNetworkAliases('mssql')
    .withEnvironment({ ACCEPT_EULA: 'Y', MSSQL_PID: 'Developer', MSSQL_SA_PASSWORD: password })
    .withExposedPorts(1433)
    .withWaitStrategy(Wait.forLogMessage(/SQL Server is now ready for client connections/))
    .start();
  owned.push({ [Symbol.asyncDispose]: async () => void (await container.stop()) });
  const server = {
    host: container.getHost(),
    port: container.getMappedPort(1433),
    user: 'sa',
    password,
    query: 'trustServerCertificate=true',
    proxyUpstream: 'mssql:1433',
  };
  await mssqlAdmin(server, null, ['CREATE DATABASE [dpone_cells]']);
  return { server, cellsDatabase: 'dpone_cells' };
}
