import { DponeError, ERROR_CODES, isDponeError } from '../../contracts/errors.ts';
import type { Workload } from '../../contracts/workload.ts';
import type { TargetConnector } from '../../ports/connector.ts';
import { noFenceAnswer } from '../../ports/connector.ts';
import type { CliIO } from '../command.ts';
import { NO_FAULTS } from '../../ports/fault-points.ts';
import type { FenceReader } from '../../ports/built-in-engine.ts';
import { TARGET_ENGINES } from '../built-in-engines.ts';
import { openRouteTarget, routeTargetEngine, routeTargetOpener } from '../route-connectors.ts';

/** A fence reader that may raise the fence's epoch (recovery apply fences first); absent on a fenceless target. */
export type FenceAccess = FenceReader & Partial<Pick<TargetConnector, 'prepareFence'>>;

/**
 * The route's fence for recovery apply: an engine that brings a raiser (TargetEngine.openFenceRaiser:
 * SQLite's, PostgreSQL's) sends only the fence statements (no DDL); another target is opened whole,
 * whose prepareFence with `create: false` only raises. A fenceless target has nothing to raise.
 */
export async function openFenceAccess(workload: Workload, io: CliIO): Promise<FenceAccess> {
  if (workload.target.fence === 'none') return NO_FENCE_READER;
  // A plug-in's route id names no built-in engine: asking for one refused apply on every plug-in
  // route (ROUTE_NOT_CERTIFIED); its target is opened whole below.
  const engine = workload.target.connector === undefined ? routeTargetEngine(workload) : null;
  const openRaiser = engine === null ? undefined : TARGET_ENGINES[engine]?.openFenceRaiser;
  if (openRaiser) return openRaiser(workload, io.env);
  const target = await openRouteTarget(workload, io, false);
  return {
    queryFence: (operationId) => target.queryFence(operationId),
    prepareFence: (fence, mode) => target.prepareFence(fence, { ...mode, create: false }),
    [Symbol.asyncDispose]: () => target.close(),
  };
}

/**
 * A read-only reader of a route's target fence for inspect, plan and apply. SQLite is opened with
 * `readOnly`, so querying the fence cannot create tables or change a byte of the target file;
 * an engine in its own folder brings its reader (PostgreSQL's reads inside a READ ONLY
 * transaction, as opening the target connector would create missing tables; others send only the
 * fence SELECT, or read on a connection the server holds read-only); another route reads
 * through its target connector, whose queryFence is read-only by contract.
 */
export async function openFenceReader(workload: Workload, io: CliIO): Promise<FenceReader> {
  if (workload.target.fence === 'none') return NO_FENCE_READER;
  // A plug-in opens its target read-only on request (TargetOpenContext.readOnly).
  if (workload.target.connector !== undefined) return openRouteTarget(workload, io, true);
  const engine = routeTargetEngine(workload);
  // An engine in its own folder brings its reader (TargetEngine.openFenceReader), e.g. a staging/swap target's.
  const openReader = TARGET_ENGINES[engine]?.openFenceReader;
  if (openReader) return openReader(workload, io.env);
  return openRouteFenceReader(workload, io);
}

/** A target written without a fence (capability none) has nothing to read: it cannot tell. */
const NO_FENCE_READER: FenceReader = {
  queryFence: async () => noFenceAnswer(),
  [Symbol.asyncDispose]: async () => undefined,
};

async function openRouteFenceReader(workload: Workload, io: CliIO): Promise<FenceReader> {
  const open = routeTargetOpener(workload);
  let target: TargetConnector;
  try {
    target = await open(workload, { env: io.env, faults: NO_FAULTS });
  } catch (error) {
    if (isDponeError(error)) throw error;
    throw new DponeError(
      ERROR_CODES.FENCE_UNAVAILABLE,
      'the route’s target could not be opened',
      {},
      { cause: error },
    );
  }
  return {
    queryFence: (operationId) => target.queryFence(operationId),
    [Symbol.asyncDispose]: () => target.close(),
  };
}
