import { join } from 'node:path';
import { firstLine } from '../../../../harness/env/first-line.ts';
import { findLocalBinaries } from './local-binaries.ts';
import type { ServiceEntry } from '../../../../harness/env/service-entry.ts';
import type { PostgresService } from './postgres-services.ts';
import { POSTGRES_ENV } from './postgres-services.ts';
import { findPgBouncer } from './pgbouncer.ts';

/** PostgreSQL as a server service of the environment providers (its harness entry, ../engine.ts, carries it). */
export const POSTGRES_SERVICE: ServiceEntry<PostgresService, 'postgres' | 'postgres-user' | 'pgbouncer'> = {
  label: 'PostgreSQL',
  install: {
    hints: {
      postgres: 'apt-get install -y postgresql',
      'postgres-user': 'apt-get install -y postgresql (creates it) or useradd --system postgres',
      pgbouncer: 'apt-get install -y pgbouncer',
    },
    matchers: [
      [/pgbouncer|pooler/i, 'pgbouncer', 30],
      [/postgres|initdb|pg_ctl/i, 'postgres', 80],
    ],
  },
  external: {
    requiredEnv: [POSTGRES_ENV.url, POSTGRES_ENV.password],
    start: async (env) => (await import('./external-postgres.ts')).externalPostgres(env),
  },
  // A cluster of the cell's own (local provider): killed, its backends stopped, failed over.
  ownServer: {
    faults: ['server-kill', 'stall', 'lost-commit'],
    offered: (service) => service.dedicated !== undefined,
  },
  // PgBouncer in front of the run's server (the local provider's, when the binary is here).
  pooler: {
    missing: (service, provider) =>
      service?.pooler
        ? null
        : (service?.poolerMissing ??
          `this provider (${provider}) starts no PgBouncer: the pooler lane cannot run`),
  },
  doctor: {
    uses: {
      providers: { local: ['postgres', 'postgres-user'], docker: [], external: [] },
      ownRoute: [
        {
          provider: 'local',
          command: 'dpone certify run --route postgres --provider local',
          // The suite's pooler lane (without PgBouncer those cells are UNVERIFIED).
          needs: ['pgbouncer'],
        },
        { provider: 'docker', command: 'dpone certify run --route postgres --provider docker' },
        { provider: 'external', command: 'dpone certify run --route postgres --provider external' },
      ],
    },
    externalExample: 'postgres://user@host:5432/db',
    probe: async ({ env, isRoot }) => {
      const found = findLocalBinaries(env);
      const pgVersion = found.postgresBin
        ? await firstLine(join(found.postgresBin, 'pg_ctl'), ['--version'])
        : null;
      const postgresUser = isRoot ? await firstLine('id', ['-u', 'postgres']) : 'not needed';
      const pgbouncer = findPgBouncer(env);
      const bouncerVersion = pgbouncer ? await firstLine(pgbouncer, ['--version']) : null;
      return [
        [
          {
            id: 'postgres',
            name: 'PostgreSQL server (initdb, pg_ctl)',
            present: pgVersion !== null,
            detail: pgVersion
              ? `${pgVersion} (${found.postgresBin})`
              : 'not found in /usr/lib/postgresql/*/bin or on PATH',
          },
          30,
        ],
        [
          {
            id: 'postgres-user',
            name: 'OS user postgres (when root)',
            present: postgresUser !== null,
            detail: isRoot
              ? postgresUser
                ? `uid ${postgresUser}`
                : 'no such user'
              : 'not root: clusters run as you',
          },
          31,
        ],
        [
          {
            id: 'pgbouncer',
            name: 'PgBouncer (the PostgreSQL suite’s pooler lane)',
            present: bouncerVersion !== null,
            detail: bouncerVersion
              ? `${bouncerVersion} (${pgbouncer})`
              : 'not found (/usr/sbin/pgbouncer, $DPONE_PGBOUNCER)',
          },
          41,
        ],
      ];
    },
  },
  local: {
    missing: (env) => {
      const binaries = findLocalBinaries(env);
      return binaries.postgresBin === null ? binaries.missing[0]! : null;
    },
    start: async (env, owned) =>
      (await import('./postgres-local.ts')).startLocalPostgres(
        findLocalBinaries(env).postgresBin!,
        env,
        owned,
      ),
  },
  docker: {
    image: 'postgres:15',
    start: async (network, owned) =>
      (await import('./postgres-container.ts')).startPostgresContainer(
        POSTGRES_SERVICE.docker.image,
        network,
        owned,
      ),
  },
};
