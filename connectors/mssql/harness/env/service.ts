import type { ServiceEntry } from '../../../../harness/env/service-entry.ts';
import type { MssqlService } from './mssql-service.ts';
import { MSSQL_ENV } from './mssql-service.ts';

/** SQL Server as a server service of the environment providers (services.ts lists it). */
export const MSSQL_SERVICE: ServiceEntry<MssqlService> = {
  label: 'SQL Server',
  external: {
    requiredEnv: [MSSQL_ENV.url, MSSQL_ENV.password],
    start: async (env) => (await import('./external-mssql.ts')).externalMssql(env),
  },
  docker: {
    image: 'mcr.microsoft.com/mssql/server:2022-latest',
    start: async (network, owned) =>
      (await import('./mssql-container.ts')).startMssqlContainer(MSSQL_SERVICE.docker.image, network, owned),
  },
};
