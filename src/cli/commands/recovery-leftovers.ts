import type { Workload } from '../../contracts/workload.ts';
import type { CliIO } from '../command.ts';
import { endpointPassword } from '../built-in-engines.ts';
import { routeTargetEngine } from '../route-connectors.ts';

/** One thing an operation left in its target (a ClickHouse staging table or tombstone). */
export interface LeftoverJSON {
  readonly name: string;
  readonly kind: 'staging' | 'tombstone';
  readonly epoch: number;
}

/** A route target's leftovers of an operation: listed by inspect, removed by cleanup. */
export interface Leftovers extends AsyncDisposable {
  list(operationId: string): Promise<LeftoverJSON[]>;
  cleanup(operationId: string, audit: { readonly actor: string; readonly reason: string }): Promise<string[]>;
}

/** A target that keeps nothing outside its commit (a transactional marker writes in one transaction). */
const NOTHING: Leftovers = {
  list: async () => [],
  cleanup: async () => [],
  [Symbol.asyncDispose]: async () => undefined,
};

/**
 * The leftovers of the route's target: only ClickHouse's staging/swap protocol leaves tables
 * behind (staging tables, tombstones); the other built-in targets write data and marker in one
 * transaction and leave nothing. `readOnly` (inspect) reads on a connection the server holds
 * read-only.
 */
export async function openLeftovers(workload: Workload, io: CliIO, readOnly: boolean): Promise<Leftovers> {
  if (workload.target.fence === 'none' || workload.target.connector !== undefined) return NOTHING;
  if (routeTargetEngine(workload) !== 'clickhouse') return NOTHING;
  const { openClickHouseLeftovers } =
    await import('../../adapters/connectors/clickhouse/clickhouse-cleanup.ts');
  const password = endpointPassword(workload.target, 'target', io.env);
  return openClickHouseLeftovers({
    url: workload.target.url,
    ...(password === undefined ? {} : { password }),
    table: workload.target.table,
    partitionColumn: workload.data.partition.column,
    readOnly,
  });
}
