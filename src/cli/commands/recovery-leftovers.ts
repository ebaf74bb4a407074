import type { Workload } from '../../contracts/workload.ts';
import type { CliIO } from '../command.ts';
import type { Leftovers } from '../../ports/built-in-engine.ts';
import { TARGET_ENGINES } from '../built-in-engines.ts';
import { routeTargetEngine } from '../route-connectors.ts';

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
  // Only an engine that writes outside its commit (ClickHouse's staging/swap) brings openLeftovers.
  const open = TARGET_ENGINES[routeTargetEngine(workload)]?.openLeftovers;
  return open ? open(workload, io.env, readOnly) : NOTHING;
}
