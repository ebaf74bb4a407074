import type { Workload } from '../../contracts/workload.ts';
import type { CliIO } from '../command.ts';
import type { Leftovers } from '../../ports/connector-plugin.ts';
import type { ResolvedRoute } from '../route-connectors.ts';
import { resolveRoute } from '../route-connectors.ts';

/** A target that keeps nothing outside its commit (a transactional marker writes in one transaction). */
const NOTHING: Leftovers = {
  list: async () => [],
  cleanup: async () => [],
  [Symbol.asyncDispose]: async () => undefined,
};

/**
 * The leftovers of the route's target: only a target that writes outside its commit (a staging/swap
 * protocol: staging tables, tombstones) brings PluginTarget.openLeftovers; the other
 * targets write data and marker in one transaction and leave nothing. `readOnly` (inspect) reads on
 * a connection the server holds read-only. `resolved`: the workload's route when the caller
 * resolved it already.
 */
export async function openLeftovers(
  workload: Workload,
  io: CliIO,
  readOnly: boolean,
  resolved?: ResolvedRoute,
): Promise<Leftovers> {
  if (workload.target.fence === 'none') return NOTHING;
  return (await (resolved ?? (await resolveRoute(workload))).openLeftovers(io, readOnly)) ?? NOTHING;
}
