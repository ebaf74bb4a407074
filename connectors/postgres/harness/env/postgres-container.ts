import type { StartedNetwork } from 'testcontainers';
import { randomBytes } from 'node:crypto';
import { createCellsDatabase } from './postgres-admin.ts';
import type { PostgresService } from './postgres-services.ts';

/** PostgreSQL as a container (fsync on), with one database for the run's cells. */
export async function startPostgresContainer(
  image: string,
  network: StartedNetwork,
  owned: AsyncDisposable[],
): Promise<PostgresService> {
  const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
  const password = randomBytes(18).toString('hex');
  const pg = await new PostgreSqlContainer(image)
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
