import { fileURLToPath } from 'node:url';
import { defineConnector } from '../../src/ports/connector-plugin.ts';
import type { Workload } from '../../src/contracts/workload.ts';
import { hostOf, serverSourceEntry, serverTarget } from '../../src/ports/built-in-engine.ts';
import { serverLocation } from '../../src/ports/built-in-engine.ts';

/**
 * ClickHouse, registered with the runtime as a plug-in on the public contract: the one line src/cli/engine-table.ts lists. Each
 * opener imports its connector lazily, so a run that never touches ClickHouse never loads its driver.
 * Source and target: any route may read from or write to ClickHouse; the target certifies
 * staging/swap generations (clickhouse-fence.ts), leaves staging tables and tombstones an operation
 * that never committed can be cleaned of, and reads its fence on a read-only connection.
 */
/** The target table as its target, fence reader and leftovers see it: the server target and its partition column. */
function targetSite(workload: Workload, env: NodeJS.ProcessEnv) {
  return { ...serverTarget(workload, env), partitionColumn: workload.data.partition.column };
}

export const CLICKHOUSE_ENGINE = defineConnector({
  meta: { name: 'clickhouse', version: 'built-in' },
  // `clickhouse` names "any source into ClickHouse": the source URL's engine picks the source.
  naming: { alias: 'target' },
  folder: fileURLToPath(new URL('./', import.meta.url)),
  source: serverSourceEntry('clickhouse-source/1', async (options) =>
    (await import('./clickhouse-source.ts')).ClickHouseSource.open(options),
  ),
  target: {
    version: 'clickhouse-staging-swap-generation/1',
    capability: 'staging-swap-generation',
    fenceLocation: async (_endpoint, { workload }) => {
      const { clickHouseFenceLocation } = await import('./clickhouse-config.ts');
      return clickHouseFenceLocation(workload.target.url, 'target.url');
    },
    open: async (_endpoint, opened) => {
      const { workload, env } = hostOf(opened);
      const { faults } = opened;
      // Unsafe variants answer only under DPONE_HARNESS=1; otherwise this is ClickHouseTarget.open.
      const { clickhouseTargetForHarness } = await import('./clickhouse-unsafe-variants.ts');
      return clickhouseTargetForHarness({ ...targetSite(workload, env), faults }, env);
    },
    openFenceReader: async (_endpoint, { workload, env }) => {
      const { openClickHouseFenceReader } = await import('./clickhouse-fence-reader.ts');
      return openClickHouseFenceReader(targetSite(workload, env));
    },
    openLeftovers: async (_endpoint, { workload, env, readOnly }) => {
      const { openClickHouseLeftovers } = await import('./clickhouse-cleanup.ts');
      return openClickHouseLeftovers({ ...targetSite(workload, env), readOnly });
    },
  },
  workload: {
    location: (workload, side) => serverLocation('clickhouse', workload[side], { port: '8123' }),
  },
});
