/**
 * Route ids. A route is a source connector, a target connector (and a journal adapter): its id
 * is `SOURCE-to-TARGET`, each an engine name (`sqlite-to-clickhouse`, `postgres-to-postgres`).
 * The short names of the routes that came first stay as aliases; an alias resolves to its full id
 * everywhere (workload `route:`, `--route`, scenario files), and a certification names the full id.
 * `clickhouse` named "any source into ClickHouse", so it resolves by the source URL's engine.
 */
export const ROUTE_ALIASES: Readonly<Record<string, string>> = {
  sqlite: 'sqlite-to-sqlite',
  postgres: 'postgres-to-postgres',
  mssql: 'mssql-to-mssql',
};

/** The alias whose target is fixed and whose source is read from the source URL. */
export const TARGET_ALIASES: Readonly<Record<string, string>> = { clickhouse: 'clickhouse' };

/**
 * The engines this runtime has built-in connectors for (src/cli/engine-table.ts lists them; its
 * test keeps the two lists equal). A plug-in route may not be named SOURCE-to-<one of these>.
 */
export const BUILT_IN_ENGINES = ['sqlite', 'postgres', 'mssql', 'clickhouse'] as const;

const ENGINE = '[a-z][a-z0-9]*';
const FULL_ID = new RegExp(`^(${ENGINE})-to-(${ENGINE})$`);

export interface RouteParts {
  readonly id: string;
  readonly source: string;
  readonly target: string;
}

/** The engine a connection URL names by its scheme, or null when the scheme names none we know. */
export function urlEngine(url: string): string | null {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url.trim())?.[1]?.toLowerCase();
  if (scheme === undefined) return null;
  if (scheme === 'postgresql') return 'postgres';
  if (scheme === 'sqlserver') return 'mssql';
  return scheme;
}

/**
 * The full id and engines of `route` (an id or an alias), or null when it is neither. `sourceUrl`
 * resolves a target alias (`clickhouse` → `<engine of the source URL>-to-clickhouse`).
 */
export function resolveRouteId(route: string, sourceUrl?: string): RouteParts | null {
  const aliased = ROUTE_ALIASES[route] ?? route;
  const target = Object.hasOwn(TARGET_ALIASES, route) ? TARGET_ALIASES[route]! : null;
  const full = target !== null ? `${(sourceUrl && urlEngine(sourceUrl)) || target}-to-${target}` : aliased;
  const match = FULL_ID.exec(full);
  return match ? { id: full, source: match[1]!, target: match[2]! } : null;
}

/** `SOURCE-to-TARGET`. */
export function routeIdOf(source: string, target: string): string {
  return `${source}-to-${target}`;
}
