import { fileURLToPath } from 'node:url';
import type { BuiltInEngine } from '../../src/ports/built-in-engine.ts';
import { endpointPassword, serverSource, serverTarget } from '../../src/ports/built-in-engine.ts';
import { serverLocation } from '../../src/ports/built-in-engine.ts';
import { POSTGRES_CREATE_COLUMN, checkPostgresNames } from './postgres-workload.ts';

/**
 * PostgreSQL, registered with the runtime: the one entry src/cli/built-in-engines.ts lists. Each
 * opener imports its module lazily, so a run that never touches PostgreSQL never loads its driver.
 * Source, target and journal: any route may read from or write to PostgreSQL, whose target
 * certifies a commit marker written in the data's transaction (postgres-fence.ts, on the shared
 * marker kernel) and may be written without one (`target.fence: none`); recovery reads its fence
 * inside a READ ONLY transaction and raises it sending only the fence statements (no DDL);
 * `postgres://` and `postgresql://` journal URLs open the journal in journal/, which also keeps
 * shadow mode's records on the same server.
 */
export const POSTGRES_ENGINE: BuiltInEngine = {
  folder: fileURLToPath(new URL('./', import.meta.url)),
  source: {
    version: 'postgres-source/1',
    open: async (workload, { env }) => {
      const { PostgresSource } = await import('./postgres-source.ts');
      return PostgresSource.open({ ...serverSource(workload, env), env });
    },
  },
  target: {
    version: 'postgres-transactional-commit-marker/2',
    capability: 'transactional-commit-marker',
    fenceLocation: async (workload) => {
      const { postgresFence } = await import('./postgres-fence.ts');
      return postgresFence(workload.target.url, workload.target.fence_schema).location;
    },
    open: async (workload, { env, faults, note }) => {
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
    openPlainTarget: async (workload, { env, faults }) => {
      const { openPlainPostgresTarget } = await import('./postgres-target.ts');
      const { create } = workload.target;
      return openPlainPostgresTarget({
        ...serverTarget(workload, env),
        ...(create ? { create } : {}),
        faults,
      });
    },
    openFenceReader: async (workload, env) => {
      const { openPostgresFenceReader } = await import('./postgres-fence-reader.ts');
      return openPostgresFenceReader(
        workload.target.url,
        endpointPassword(workload.target, 'target', env),
        workload.target.fence_schema,
      );
    },
    openFenceRaiser: async (workload, env) => {
      const { openPostgresFenceRaiser } = await import('./postgres-fence-reader.ts');
      return openPostgresFenceRaiser(
        workload.target.url,
        endpointPassword(workload.target, 'target', env),
        workload.target.fence_schema,
      );
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
};
