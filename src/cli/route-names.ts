import type { RouteNames, RouteParts } from '../contracts/route-id.ts';
import { resolveRouteIdIn, urlEngineIn } from '../contracts/route-id.ts';
import { BUILT_IN_CONNECTORS } from './engine-table.ts';

/*
 * How this build names its engines, derived from the one engine list (engine-table.ts): each
 * engine's registration declares its extra URL schemes and whether its name is a route alias
 * (ConnectorPlugin.naming). Every src/ reader of a route id or a URL's engine asks this module.
 */

const engines = Object.entries(BUILT_IN_CONNECTORS);

/** The engines this runtime has built-in connectors for; a plug-in route may not be named SOURCE-to-<one of these>. */
export const BUILT_IN_ENGINES: readonly string[] = engines.map(([name]) => name);

/** The built-in engines' names, as the route-id rules read them. */
export const ROUTE_NAMES: RouteNames = {
  routeAliases: Object.fromEntries(
    engines
      .filter(([, engine]) => engine.naming?.alias === 'route')
      .map(([name]) => [name, `${name}-to-${name}`]),
  ),
  targetAliases: Object.fromEntries(
    engines.filter(([, engine]) => engine.naming?.alias === 'target').map(([name]) => [name, name]),
  ),
  schemes: Object.fromEntries(
    engines.flatMap(([name, engine]) => (engine.naming?.schemes ?? []).map((scheme) => [scheme, name])),
  ),
};

/** The URL schemes that name a local file, not a host (EngineNaming.fileUrls): the password policy reads only their query. */
export const FILE_URL_SCHEMES: readonly string[] = engines
  .filter(([, engine]) => engine.naming?.fileUrls === true)
  .flatMap(([name, engine]) => [name, ...(engine.naming?.schemes ?? [])]);

/** Alias → full route id (`E` → `E-to-E`). */
export const ROUTE_ALIASES = ROUTE_NAMES.routeAliases;

/** The aliases whose target is fixed and whose source is read from the source URL. */
export const TARGET_ALIASES = ROUTE_NAMES.targetAliases;

/** The engine a connection URL names by its scheme, or null when the scheme names none we know. */
export function urlEngine(url: string): string | null {
  return urlEngineIn(ROUTE_NAMES, url);
}

/**
 * The full id and engines of `route` (an id or an alias), or null when it is neither. `sourceUrl`
 * resolves a target alias (`E` → `<engine of the source URL>-to-E`).
 */
export function resolveRouteId(route: string, sourceUrl?: string): RouteParts | null {
  return resolveRouteIdIn(ROUTE_NAMES, route, sourceUrl);
}
