import { mssqlAdmin } from './mssql-admin.ts';
import type { MssqlEndpoint, MssqlService } from './mssql-service.ts';
import { MSSQL_ENV } from './mssql-service.ts';
import { cellsDatabaseName, externalLogin } from '../../../../harness/env/external/external-env.ts';

/**
 * The user's SQL Server (`mssql://LOGIN@HOST:1433[?trustServerCertificate=true]`, password from
 * DPONE_MSSQL_PASSWORD): one throw-away database for the run's cells, dropped on dispose.
 */
export async function externalMssql(
  env: NodeJS.ProcessEnv,
): Promise<(MssqlService & AsyncDisposable) | string> {
  const found = externalLogin(env, MSSQL_ENV, { port: 1433, user: 'sa' });
  if (typeof found === 'string') return found;
  const server: MssqlEndpoint = { ...found.login, query: found.url.search.slice(1) };
  const cellsDatabase = cellsDatabaseName();
  try {
    await mssqlAdmin(server, null, [`CREATE DATABASE [${cellsDatabase}]`]);
  } catch {
    return `SQL Server at ${server.host}:${server.port} did not let ${server.user} create the run's database ${cellsDatabase} (check ${MSSQL_ENV.url}, ${MSSQL_ENV.password} and the CREATE DATABASE permission)`;
  }
  return {
    server,
    cellsDatabase,
    async [Symbol.asyncDispose]() {
      await mssqlAdmin(server, null, [
        `IF DB_ID('${cellsDatabase}') IS NOT NULL BEGIN ALTER DATABASE [${cellsDatabase}] SET SINGLE_USER WITH ROLLBACK IMMEDIATE; DROP DATABASE [${cellsDatabase}] END`,
      ]).catch(() => undefined);
    },
  };
}
