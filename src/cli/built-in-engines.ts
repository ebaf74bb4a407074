import { routeIdOf } from '../contracts/route-id.ts';
import type { PluginSource, PluginTarget } from '../ports/connector-plugin.ts';
import { builtInSides } from './engine-table.ts';

/*
 * The routes the built-in engines make (engine-table.ts lists the engines): which sources and
 * targets this build has. How a route opens is route-connectors.ts's (the one wiring module).
 */

/** Source engine → its source part. A route is any source with any target (`SOURCE-to-TARGET`). */
export const SOURCE_ENGINES: Readonly<Record<string, PluginSource>> = builtInSides('source');

/** Target engine → its target part. */
export const TARGET_ENGINES: Readonly<Record<string, PluginTarget>> = builtInSides('target');

/** Every route this build can run: each source engine with each target engine. */
export function runtimeRouteIds(): string[] {
  return Object.keys(SOURCE_ENGINES).flatMap((source) =>
    Object.keys(TARGET_ENGINES).map((target) => routeIdOf(source, target)),
  );
}
