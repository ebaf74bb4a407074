import { routeIdOf } from '../contracts/route-id.ts';
import type { PluginSource, PluginTarget } from '../ports/connector-plugin.ts';
import type { ConnectorPlugin } from '../ports/connector-plugin.ts';
import { CLICKHOUSE_ENGINE } from '../../connectors/clickhouse/engine.ts';
import { MSSQL_ENGINE } from '../../connectors/mssql/engine.ts';
import { POSTGRES_ENGINE } from '../../connectors/postgres/engine.ts';
import { SQLITE_ENGINE } from '../../connectors/sqlite/engine.ts';

/** A built-in engine: a plug-in on the public contract that names its folder (ConnectorPlugin.folder). */
export type BuiltInConnector = ConnectorPlugin & { readonly folder: string };

/**
 * The built-in engines, each a plug-in its folder's engine.ts defines (`connectors/<engine>/`, the
 * same `defineConnector` object a third-party plug-in exports): one line per engine, in the order
 * the route errors list them (the embedded engine first). Read by the route wiring
 * (route-connectors.ts) and by the workload reader (each engine's workload rules), which is why it
 * is a module of its own.
 */
export const BUILT_IN_CONNECTORS: Readonly<Record<string, BuiltInConnector>> = {
  sqlite: SQLITE_ENGINE,
  postgres: POSTGRES_ENGINE,
  mssql: MSSQL_ENGINE,
  clickhouse: CLICKHOUSE_ENGINE,
};

/** The built-in engine `name`, or undefined for a plug-in's or an unknown one. */
export function builtInConnector(name: string): BuiltInConnector | undefined {
  return Object.hasOwn(BUILT_IN_CONNECTORS, name) ? BUILT_IN_CONNECTORS[name] : undefined;
}

/** The built-in engines that have a source (or a target), by engine name, in the table's order. */
export function builtInSides<Side extends 'source' | 'target'>(
  side: Side,
): Record<string, NonNullable<ConnectorPlugin[Side]>> {
  return Object.fromEntries(
    Object.entries(BUILT_IN_CONNECTORS).flatMap(([name, engine]) => {
      const part = engine[side];
      return part ? [[name, part]] : [];
    }),
  );
}

/*
 * The routes the built-in engines make: which sources and targets this build has. How a route
 * opens is route-connectors.ts's (the one wiring module).
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
