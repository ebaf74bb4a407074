import type { Workload } from '../../contracts/workload.ts';
import type { TargetConnector } from '../../ports/connector.ts';
import { noFenceAnswer } from '../../ports/connector.ts';
import type { CliIO } from '../command.ts';
import type { FenceReader } from '../../ports/connector-plugin.ts';
import type { ResolvedRoute } from '../route-connectors.ts';
import { resolveRoute } from '../route-connectors.ts';

/** A fence reader that may raise the fence's epoch (recovery apply fences first); absent on a fenceless target. */
export type FenceAccess = FenceReader & Partial<Pick<TargetConnector, 'prepareFence'>>;

/**
 * The route's fence for recovery apply: a target that brings a raiser (PluginTarget.openFenceRaiser)
 * sends only the fence statements (no DDL); another target is opened whole,
 * whose prepareFence with `create: false` only raises. A fenceless target has nothing to raise.
 * `resolved`: the workload's route when the caller resolved it already.
 */
export async function openFenceAccess(
  workload: Workload,
  io: CliIO,
  resolved?: ResolvedRoute,
): Promise<FenceAccess> {
  if (workload.target.fence === 'none') return NO_FENCE_READER;
  const route = resolved ?? (await resolveRoute(workload));
  const raiser = route.openFenceRaiser(io);
  if (raiser) return raiser;
  const target = await route.openTarget(io, false);
  return {
    queryFence: (operationId) => target.queryFence(operationId),
    prepareFence: (fence, mode) => target.prepareFence(fence, { ...mode, create: false }),
    [Symbol.asyncDispose]: () => target.close(),
  };
}

/**
 * A read-only reader of a route's target fence for inspect, plan and apply: the target's own
 * reader where it brings one (PluginTarget.openFenceReader: on a file opened read-only, inside a
 * READ ONLY transaction where opening the target connector would create missing tables, sending
 * only the fence SELECT, or on a connection the server holds read-only); else the target opened
 * read-only (TargetOpenContext.readOnly), whose queryFence is read-only by contract. `resolved`
 * as for openFenceAccess.
 */
export async function openFenceReader(
  workload: Workload,
  io: CliIO,
  resolved?: ResolvedRoute,
): Promise<FenceReader> {
  if (workload.target.fence === 'none') return NO_FENCE_READER;
  return (resolved ?? (await resolveRoute(workload))).openFenceReader(io);
}

/** A target written without a fence (capability none) has nothing to read: it cannot tell. */
const NO_FENCE_READER: FenceReader = {
  queryFence: async () => noFenceAnswer(),
  [Symbol.asyncDispose]: async () => undefined,
};
