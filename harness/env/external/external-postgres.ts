import { randomBytes } from 'node:crypto';
import { createCellsDatabase, dropCellsDatabase, missingPrivilege } from '../postgres-admin.ts';
import type { PostgresEndpoint, PostgresService } from '../postgres-services.ts';
import { EXTERNAL_ENV, serverUrl } from './external-env.ts';

/**
 * The user's PostgreSQL: the role's privileges are checked before anything is created, then one
 * throw-away database holds the run's cells (`dpone_cells_<random>`), dropped on dispose.
 */
export async function externalPostgres(
  env: NodeJS.ProcessEnv,
): Promise<(PostgresService & AsyncDisposable) | string> {
  const url = serverUrl(env, EXTERNAL_ENV.pgUrl, EXTERNAL_ENV.pgPassword);
  if (typeof url === 'string') return url;
  const port = Number(url.port || 5432);
  const server: PostgresEndpoint = {
    host: url.hostname,
    port,
    user: decodeURIComponent(url.username || 'postgres'),
    password: env[EXTERNAL_ENV.pgPassword] ?? '',
    adminDatabase: decodeURIComponent(url.pathname.slice(1)) || 'postgres',
    proxyUpstream: env[EXTERNAL_ENV.pgUpstream] ?? `${url.hostname}:${port}`,
  };
  const missing = await missingPrivilege(server);
  if (missing) return missing;
  const cellsDatabase = `dpone_cells_${randomBytes(6).toString('hex')}`;
  try {
    await createCellsDatabase(server, cellsDatabase);
  } catch {
    return `could not create the run's database ${cellsDatabase}`;
  }
  return {
    server,
    cellsDatabase,
    async [Symbol.asyncDispose]() {
      await dropCellsDatabase(server, cellsDatabase).catch(() => undefined);
    },
  };
}
