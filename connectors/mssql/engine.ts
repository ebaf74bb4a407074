import { fileURLToPath } from 'node:url';
import { defineConnector } from '../../src/ports/connector-plugin.ts';
import {
  endpointPassword,
  hostOf,
  serverSourceEntry,
  serverTarget,
} from '../../src/ports/built-in-engine.ts';
import { serverLocation } from '../../src/ports/built-in-engine.ts';

/**
 * Microsoft SQL Server, registered with the runtime as a plug-in on the public contract: the one
 * line src/cli/engine-table.ts lists. Each opener imports its module lazily, so a run that never touches MSSQL never loads its
 * driver. Source, target and journal: any route may read from or write to MSSQL, whose target
 * certifies a commit marker written in the data's transaction (mssql-fence.ts) and reads its fence
 * with a reader that sends only the fence SELECT; `mssql://` and `sqlserver://` journal URLs open
 * the journal in journal/.
 */
export const MSSQL_ENGINE = defineConnector({
  meta: { name: 'mssql', version: 'built-in' },
  // `sqlserver://` URLs name it too; `mssql` names the route mssql-to-mssql.
  naming: { schemes: ['sqlserver'], alias: 'route' },
  folder: fileURLToPath(new URL('./', import.meta.url)),
  source: serverSourceEntry('mssql-source/1', async (options) =>
    (await import('./mssql-source.ts')).MssqlSource.open(options),
  ),
  target: {
    version: 'mssql-transactional-commit-marker/2',
    capability: 'transactional-commit-marker',
    fenceLocation: async (_endpoint, { workload }) => {
      const { mssqlFence } = await import('./mssql-fence.ts');
      return mssqlFence(workload.target.fence_schema).location;
    },
    open: async (_endpoint, opened) => {
      const { workload, env } = hostOf(opened);
      const { faults } = opened;
      const { MssqlTarget } = await import('./mssql-target.ts');
      return MssqlTarget.open({ ...serverTarget(workload, env), faults, env });
    },
    openFenceReader: async (_endpoint, { workload, env }) => {
      const { openMssqlFenceReader } = await import('./mssql-fence-reader.ts');
      const fenceSchema = workload.target.fence_schema;
      return openMssqlFenceReader({
        url: workload.target.url,
        password: endpointPassword(workload.target, 'target', env),
        ...(fenceSchema === undefined ? {} : { fenceSchema }),
      });
    },
  },
  journal: {
    kind: 'server',
    open: async (url, password, options) => {
      const { MssqlJournal } = await import('./journal/mssql-journal.ts');
      return MssqlJournal.open(url, password, undefined, options);
    },
  },
  // SQL Server compares names case-insensitively by default.
  workload: {
    location: (workload, side) =>
      serverLocation('mssql', workload[side], { port: '1433', schema: 'dbo', foldCase: true }),
    fenceSchema: true,
  },
});
