import { fileURLToPath } from 'node:url';
import { POSTGRES_UNSAFE_CATALOGUE } from './postgres-variant-catalogue.ts';
import { defineConnector } from '../../src/ports/connector-plugin.ts';
import { hostOf, serverSourceEntry, serverTarget } from '../../src/ports/built-in-engine.ts';
import { serverLocation } from '../../src/ports/built-in-engine.ts';
import { POSTGRES_CREATE_COLUMN, checkPostgresNames } from './postgres-workload.ts';

/**
 * PostgreSQL, registered with the runtime as a plug-in on the public contract: the one line src/cli/engine-table.ts lists. Each
 * opener imports its module lazily, so a run that never touches PostgreSQL never loads its driver.
 * Source, target and journal: any route may read from or write to PostgreSQL, whose target
 * certifies a commit marker written in the data's transaction (postgres-fence.ts, on the shared
 * marker kernel) and may be written without one (`target.fence: none`); recovery reads its fence
 * inside a READ ONLY transaction and raises it sending only the fence statements (no DDL);
 * `postgres://` and `postgresql://` journal URLs open the journal in journal/, which also keeps
 * shadow mode's records on the same server.
 */
export const POSTGRES_ENGINE = defineConnector({
  meta: { name: 'postgres', version: 'built-in' },
  // `postgresql://` URLs name it too; `postgres` names the route postgres-to-postgres.
  naming: { schemes: ['postgresql'], alias: 'route' },
  // What a record for a route into PostgreSQL must also hold (harness/gate/ decides each): issue
  // 28's pooler, failover and stall lines, issue 33's power loss, full disk and corrupt journal
  // rows under the server.
  acceptance: {
    targetItems: [
      'pooler-values-exact',
      'lost-commit-diverged',
      'stall-bounded',
      'power-loss-server-durable',
      'full-disk-server-refused-then-one',
      'journal-corruption-server-detected',
    ],
  },
  folder: fileURLToPath(new URL('./', import.meta.url)),
  source: serverSourceEntry('postgres-source/1', async (options, env) =>
    (await import('./postgres-source.ts')).PostgresSource.open({ ...options, env }),
  ),
  target: {
    version: 'postgres-transactional-commit-marker/2',
    capability: 'transactional-commit-marker',
    fenceLocation: async (_endpoint, { workload }) => {
      const { postgresFence } = await import('./postgres-fence.ts');
      return postgresFence(workload.target.url, workload.target.fence_schema).location;
    },
    open: async (_endpoint, opened) => {
      const { workload, env, note } = hostOf(opened);
      const { faults } = opened;
      const { PostgresTarget } = await import('./postgres-target.ts');
      const { create } = workload.target;
      return PostgresTarget.open({
        ...serverTarget(workload, env),
        ...(create ? { create } : {}),
        ...(note ? { note } : {}),
        faults,
        env,
      });
    },
    openPlain: async (_endpoint, opened) => {
      const { workload, env } = hostOf(opened);
      const { faults } = opened;
      const { openPlainPostgresTarget } = await import('./postgres-target.ts');
      const { create } = workload.target;
      return openPlainPostgresTarget({
        ...serverTarget(workload, env),
        ...(create ? { create } : {}),
        faults,
      });
    },
    openFenceReader: async (_endpoint, { workload, env }) => {
      const { openPostgresFenceReader } = await import('./postgres-fence-reader.ts');
      return openPostgresFenceReader(serverTarget(workload, env));
    },
    openFenceRaiser: async (_endpoint, { workload, env }) => {
      const { openPostgresFenceRaiser } = await import('./postgres-fence-reader.ts');
      return openPostgresFenceRaiser(serverTarget(workload, env));
    },
  },
  journal: {
    kind: 'server',
    open: async (url, password, options) => {
      const { PostgresJournal } = await import('./journal/postgres-journal.ts');
      return PostgresJournal.open(url, password, options);
    },
    openShadow: async (url, password, options) => {
      const { PostgresShadowJournal } = await import('./journal/postgres-shadow-journal.ts');
      return PostgresShadowJournal.open(url, password, options);
    },
  },
  // Temporary and system schemas and names over 63 bytes refused at load; quoted names compare exactly.
  workload: {
    checkEndpoint: (workload, side) => checkPostgresNames(workload, [side]),
    location: (workload, side) =>
      serverLocation('postgres', workload[side], { port: '5432', schema: 'public' }),
    fenceSchema: true,
    createColumnType: POSTGRES_CREATE_COLUMN,
  },
  // Its session's, its COPY's and its server's flaws (postgres-variant-catalogue.ts).
  unsafeCatalogue: POSTGRES_UNSAFE_CATALOGUE,
});
