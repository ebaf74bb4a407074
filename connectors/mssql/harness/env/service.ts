import type { ServiceEntry } from '../../../../harness/env/service-entry.ts';
import type { MssqlService } from './mssql-service.ts';
import { MSSQL_ENV } from './mssql-service.ts';

/** SQL Server has no package for this platform: the local provider cannot own one. */
export const NO_LOCAL_MSSQL =
  'SQL Server cannot run on this machine (no package for it here): use --provider docker (a Docker engine), or --provider external with DPONE_MSSQL_URL and DPONE_MSSQL_PASSWORD';

/** SQL Server as a server service of the environment providers (its harness entry, ../engine.ts, carries it). */
export const MSSQL_SERVICE: ServiceEntry<MssqlService, 'mssql'> = {
  label: 'SQL Server',
  install: {
    hints: {
      mssql:
        'docker compose -f docker/compose.yaml --profile mssql up -d (needs a Docker engine), then export DPONE_MSSQL_URL',
    },
    // \b: another engine whose name ends in SQL ("…SQL server binaries not found") is not SQL Server.
    matchers: [[/mssql|\bsql server/i, 'mssql', 20]],
  },
  external: {
    requiredEnv: [MSSQL_ENV.url, MSSQL_ENV.password],
    start: async (env) => (await import('./external-mssql.ts')).externalMssql(env),
  },
  doctor: {
    uses: {
      // No local server (NO_LOCAL_MSSQL); the external provider needs its URL.
      providers: { docker: [], external: ['mssql'] },
      lanes: [
        { provider: 'url', command: 'MSSQL live tests in npm test (else UNVERIFIED)', needs: ['mssql'] },
      ],
    },
    probe: async ({ env }) => [
      [
        {
          id: 'mssql',
          name: 'SQL Server',
          present: Boolean(env[MSSQL_ENV.url]),
          detail: env[MSSQL_ENV.url]
            ? `${MSSQL_ENV.url} set`
            : `${MSSQL_ENV.url} not set: MSSQL live checks are UNVERIFIED`,
        },
        90,
      ],
    ],
  },
  local: {
    missing: () => NO_LOCAL_MSSQL,
    start: () => Promise.reject(new Error(NO_LOCAL_MSSQL)),
  },
  docker: {
    image: 'mcr.microsoft.com/mssql/server:2022-latest',
    start: async (network, owned) =>
      (await import('./mssql-container.ts')).startMssqlContainer(MSSQL_SERVICE.docker.image, network, owned),
  },
};
