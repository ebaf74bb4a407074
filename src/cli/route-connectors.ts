import { DponeError, ERROR_CODES, invalidInput, isDponeError } from '../contracts/errors.ts';
import { resolveRouteId } from '../contracts/route-id.ts';
import type { Workload } from '../contracts/workload.ts';
import type { TargetConnector } from '../ports/connector.ts';
import { NO_FAULTS } from '../ports/fault-points.ts';
import type { OpenTarget, RouteContext } from '../ports/built-in-engine.ts';
import type { RouteConnectors, RouteEntry } from './built-in-engines.ts';
import { SOURCE_ENGINES, TARGET_ENGINES } from './built-in-engines.ts';
import { routeConnectorVersion as shippedConnectorVersion } from './certifications.ts';

/*
 * The route wiring: a workload's route is a plug-in's (plugin-route.ts) when an endpoint names a
 * connector module, else the built-in engines' (built-in-engines.ts). Both of those import only
 * the engines' table, never this module.
 */

/**
 * The workload's route: a plug-in's when an endpoint names a connector module, else the built-in
 * source and target engines of its id; ROUTE_NOT_CERTIFIED when this build has none.
 */
async function routeEntry(workload: Workload): Promise<RouteEntry> {
  if (workload.target?.connector !== undefined || workload.source?.connector !== undefined) {
    const { pluginRouteEntry } = await import('./plugin-route.ts');
    return pluginRouteEntry(workload);
  }
  return builtInRouteEntry(workload);
}

/** The built-in source and target engines of the workload's route id (ROUTE_NOT_CERTIFIED when unknown). */
function builtInRouteEntry(workload: Workload): RouteEntry {
  const parts = resolveRouteId(workload.route, workload.source?.url);
  const source =
    parts && Object.hasOwn(SOURCE_ENGINES, parts.source) ? SOURCE_ENGINES[parts.source] : undefined;
  const target =
    parts && Object.hasOwn(TARGET_ENGINES, parts.target) ? TARGET_ENGINES[parts.target] : undefined;
  if (!source || !target) {
    throw new DponeError(
      ERROR_CODES.ROUTE_NOT_CERTIFIED,
      `route "${workload.route}" has no connectors in this build (sources: ${Object.keys(SOURCE_ENGINES).join(', ')}; targets: ${Object.keys(TARGET_ENGINES).join(', ')}; a route is SOURCE-to-TARGET)`,
    );
  }
  return {
    capability: target.capability,
    fenceLocation: target.fenceLocation,
    openSource: source.open,
    openTarget: target.open,
    ...(target.openPlainTarget ? { openPlainTarget: target.openPlainTarget } : {}),
  };
}

/** The built-in target engine of the workload's route (ROUTE_NOT_CERTIFIED when unknown). */
export function routeTargetEngine(workload: Workload): string {
  builtInRouteEntry(workload);
  return resolveRouteId(workload.route, workload.source?.url)!.target;
}

/** Opens only the route's built-in target through its engine, for a reader of its fence. */
export function routeTargetOpener(workload: Workload): OpenTarget {
  return builtInRouteEntry(workload).openTarget;
}

/** The workload's route looked up once (built-in or plug-in): everything a run asks of it. */
export interface ResolvedRoute {
  /** The route's certified fence, or `none` when the workload writes without one (`target.fence: none`). */
  readonly capability: TargetConnector['capability'];
  /**
   * The connector version the route runs: a plug-in's `<name>@<version>`, or the pair this runtime
   * ships for a built-in route (null: none), for display: a certification binds the connectors'
   * code by digest (route-code.ts).
   */
  readonly connectorVersion: string | null;
  /** Where the fence lives (a safe identity), from the workload alone; bad fence settings are INVALID_INPUT. */
  fenceLocation(): Promise<string>;
  /** Opens source and target; if the target fails to open, the open source is closed first. */
  open(context: RouteContext): Promise<RouteConnectors>;
  /** Opens only the target (recovery commands read its fence). The caller closes it. */
  openTarget(io: { readonly env: NodeJS.ProcessEnv }, readOnly?: boolean): Promise<TargetConnector>;
}

/** Where a target written without a fence keeps it: nowhere (the journal records `none`). */
const NO_FENCE_LOCATION = 'none';

/**
 * Resolves the workload's route once: ROUTE_NOT_CERTIFIED for an unknown one. A caller that needs
 * several answers about the route (dpone run) asks this object instead of resolving it again.
 */
export async function resolveRoute(workload: Workload): Promise<ResolvedRoute> {
  const entry = await routeEntry(workload);
  const fenceless = workload.target.fence === 'none';
  const targetOpener = (): OpenTarget => {
    if (!fenceless) return entry.openTarget;
    if (!entry.openPlainTarget)
      throw invalidInput(`target.fence: none is not a setting of route ${workload.route}`, {
        field: 'target.fence',
      });
    return entry.openPlainTarget;
  };
  return {
    capability: fenceless ? 'none' : entry.capability,
    connectorVersion: entry.connectorVersion ?? shippedConnectorVersion(workload.route),
    fenceLocation: async () => (fenceless ? NO_FENCE_LOCATION : entry.fenceLocation(workload)),
    async open(context) {
      const openTarget = targetOpener();
      const source = await opening(`${workload.route} source`, () => entry.openSource(workload, context));
      try {
        const target = await opening(`${workload.route} target`, () => openTarget(workload, context));
        return { source, target };
      } catch (error) {
        await source.close().catch(() => undefined);
        throw error;
      }
    },
    openTarget(io, readOnly = false) {
      const open = targetOpener();
      return opening(`${workload.route} target`, () =>
        open(workload, { env: io.env, faults: NO_FAULTS, readOnly }),
      );
    },
  };
}

/** The capability of the workload's target (ResolvedRoute.capability). */
export async function routeCapability(workload: Workload): Promise<TargetConnector['capability']> {
  return (await resolveRoute(workload)).capability;
}

/** Where the workload's fence lives (ResolvedRoute.fenceLocation): no connection is made. */
export async function routeFenceLocation(workload: Workload): Promise<string> {
  if (workload.target.fence === 'none') return NO_FENCE_LOCATION;
  return (await resolveRoute(workload)).fenceLocation();
}

/** Opens only the route's target (recovery commands read its fence). The caller closes it. */
export async function openRouteTarget(
  workload: Workload,
  io: { readonly env: NodeJS.ProcessEnv },
  readOnly = false,
): Promise<TargetConnector> {
  return (await resolveRoute(workload)).openTarget(io, readOnly);
}

async function opening<T>(what: string, open: () => Promise<T>): Promise<T> {
  try {
    return await open();
  } catch (error) {
    if (isDponeError(error)) throw error;
    // A module that failed to load or a driver error without our code: keep its text private.
    throw new DponeError(
      ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
      `the ${what} connector could not be opened`,
      {},
      {
        cause: error,
      },
    );
  }
}

/**
 * Opens the workload's source and target through the route registry. If the target fails to open,
 * the already-open source is closed before the error propagates.
 */
export async function openRouteConnectors(
  workload: Workload,
  context: RouteContext,
): Promise<RouteConnectors> {
  return (await resolveRoute(workload)).open(context);
}

/**
 * The route's source and its target written WITHOUT a fence, whatever the workload's fence
 * setting: the legacy and shadow rollout modes' plain write. A route whose connector has no plain
 * write path is bad input naming the route.
 */
export async function openPlainRouteConnectors(
  workload: Workload,
  context: RouteContext,
): Promise<RouteConnectors> {
  const entry = await routeEntry(workload);
  const openPlain = entry.openPlainTarget;
  if (!openPlain)
    throw invalidInput(
      `route ${workload.route} has no plain (fenceless) write path, so the legacy and shadow modes cannot run it: the deployment policy must say enforced`,
      { field: 'route' },
    );
  return openRouteConnectors({ ...workload, target: { ...workload.target, fence: 'none' } }, context);
}
