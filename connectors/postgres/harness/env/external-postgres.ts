import { createCellsDatabase, dropCellsDatabase, missingPrivilege } from './postgres-admin.ts';
import type { PostgresEndpoint, PostgresService } from './postgres-services.ts';
import { POSTGRES_ENV } from './postgres-services.ts';
import { cellsDatabaseName, externalLogin } from '../../../../harness/env/external/external-env.ts';

/**
 * The user's PostgreSQL: the role's privileges are checked before anything is created, then one
 * throw-away database holds the run's cells (`dpone_cells_<random>`), dropped on dispose.
 */
export async function externalPostgres(
  env: NodeJS.ProcessEnv,
): Promise<(PostgresService & AsyncDisposable) | string> {
  const found = externalLogin(env, POSTGRES_ENV, { port: 5432, user: 'postgres' });
  if (typeof found === 'string') return found;
  const server: PostgresEndpoint = {
    ...found.login,
    adminDatabase: decodeURIComponent(found.url.pathname.slice(1)) || 'postgres',
  };
  const missing = await missingPrivilege(server);
  if (missing) return missing;
  const cellsDatabase = cellsDatabaseName();
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
