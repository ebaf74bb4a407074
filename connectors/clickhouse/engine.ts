import { fileURLToPath } from 'node:url';
import type { BuiltInEngine } from '../../src/ports/built-in-engine.ts';
import { endpointPassword, serverSource, serverTarget } from '../../src/ports/built-in-engine.ts';
import { serverLocation } from '../../src/ports/built-in-engine.ts';

/**
 * ClickHouse, registered with the runtime: the one entry src/cli/built-in-engines.ts lists. Each
 * opener imports its connector lazily, so a run that never touches ClickHouse never loads its driver.
 * Source and target: any route may read from or write to ClickHouse; the target certifies
 * staging/swap generations (clickhouse-fence.ts), leaves staging tables and tombstones an operation
 * that never committed can be cleaned of, and reads its fence on a read-only connection.
 */
export const CLICKHOUSE_ENGINE: BuiltInEngine = {
  folder: fileURLToPath(new URL('./', import.meta.url)),
  source: {
    version: 'clickhouse-source/1',
    open: async (workload, { env }) => {
      const { ClickHouseSource } = await import('./clickhouse-source.ts');
      return ClickHouseSource.open(serverSource(workload, env));
    },
  },
  target: {
    version: 'clickhouse-staging-swap-generation/1',
    capability: 'staging-swap-generation',
    fenceLocation: async (workload) => {
      const { clickHouseFenceLocation } = await import('./clickhouse-config.ts');
      return clickHouseFenceLocation(workload.target.url, 'target.url');
    },
    open: async (workload, { env, faults }) => {
      // Unsafe variants answer only under DPONE_HARNESS=1; otherwise this is ClickHouseTarget.open.
      const { clickhouseTargetForHarness } = await import('./clickhouse-unsafe-variants.ts');
      return clickhouseTargetForHarness(
        { ...serverTarget(workload, env), partitionColumn: workload.data.partition.column, faults },
        env,
      );
    },
    openFenceReader: async (workload, env) => {
      const { openClickHouseFenceReader } = await import('./clickhouse-fence-reader.ts');
      const password = endpointPassword(workload.target, 'target', env);
      return openClickHouseFenceReader({
        url: workload.target.url,
        ...(password === undefined ? {} : { password }),
        table: workload.target.table,
        partitionColumn: workload.data.partition.column,
      });
    },
    openLeftovers: async (workload, env, readOnly) => {
      const { openClickHouseLeftovers } = await import('./clickhouse-cleanup.ts');
      const password = endpointPassword(workload.target, 'target', env);
      return openClickHouseLeftovers({
        url: workload.target.url,
        ...(password === undefined ? {} : { password }),
        table: workload.target.table,
        partitionColumn: workload.data.partition.column,
        readOnly,
      });
    },
  },
  workload: {
    location: (workload, side) => serverLocation('clickhouse', workload[side], { port: '8123' }),
  },
};
