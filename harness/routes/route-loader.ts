import { invalidInput } from '../../src/contracts/errors.ts';
import { resolveRouteId } from '../../src/cli/route-names.ts';
import { nearestName } from '../../src/cli/nearest-name.ts';
import { pluginRoutes } from './plugin-routes.ts';
import { ROUTES, routeAliases, routeIds } from './route-registry.ts';
import type { Route } from './route.ts';

/** Where a plug-in route is looked for: the working folder's package.json and `--connector` modules. */
export interface RouteLoadOptions {
  readonly cwd: string;
  readonly connectors?: readonly string[];
}

/** A built-in route's full id (aliases resolve); any other name is kept as a plug-in route's id. */
export function fullRouteId(route: string): string {
  const id = resolveRouteId(route)?.id ?? route;
  return Object.hasOwn(ROUTES, id) ? id : route;
}

/** A built-in route, or one a connector plug-in declares (loaded only when a plug-in route is asked for). */
export async function loadRouteOrPlugin(id: string, options: RouteLoadOptions): Promise<Route> {
  const full = fullRouteId(id);
  const builtIn = Object.hasOwn(ROUTES, full) ? ROUTES[full] : undefined;
  if (builtIn) return builtIn();
  const plugins = await pluginRoutes(options.cwd, options.connectors);
  const load = Object.hasOwn(plugins, id) ? plugins[id] : undefined;
  if (!load) {
    const known = [...routeIds(), ...Object.keys(plugins)];
    const aliases = routeAliases();
    const near = nearestName(id, [...known, ...aliases]);
    throw invalidInput(
      `unknown route "${id}" (known: ${known.join(', ')}; aliases: ${aliases.join(', ')}; a plug-in's routes need --connector MODULE or package.json dpone.connectors)`,
      { field: '--route', ...(near ? { hint: `did you mean --route ${near}?` } : {}) },
    );
  }
  return load();
}
