import { mssqlAdmin } from './mssql-admin.ts';
import type { MssqlEndpoint, MssqlService } from './mssql-service.ts';
import {
  EXTERNAL_ENV,
  cellsDatabaseName,
  serverLogin,
  serverUrl,
} from '../../../../harness/env/external/external-env.ts';

/**
 * The user's SQL Server (`mssql://LOGIN@HOST:1433[?trustServerCertificate=true]`, password from
 * DPONE_MSSQL_PASSWORD): one throw-away database for the run's cells, dropped on dispose.
 */
export async function externalMssql(
  env: NodeJS.ProcessEnv,
): Promise<(MssqlService & AsyncDisposable) | string> {
  const url = serverUrl(env, EXTERNAL_ENV.mssqlUrl, EXTERNAL_ENV.mssqlPassword);
  if (typeof url === 'string') return url;
  const server: MssqlEndpoint = {
    ...serverLogin(env, url, {
      port: 1433,
      user: 'sa',
      passwordVar: EXTERNAL_ENV.mssqlPassword,
      upstreamVar: EXTERNAL_ENV.mssqlUpstream,
    }),
    query: url.search.slice(1),
  };
  const cellsDatabase = cellsDatabaseName();
  try {
    await mssqlAdmin(server, null, [`CREATE DATABASE [${cellsDatabase}]`]);
  } catch {
    return `SQL Server at ${server.host}:${server.port} did not let ${server.user} create the run's database ${cellsDatabase} (check ${EXTERNAL_ENV.mssqlUrl}, ${EXTERNAL_ENV.mssqlPassword} and the CREATE DATABASE permission)`;
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
