/**
 * Route ids. A route is a source connector, a target connector (and a journal adapter): its id
 * is `SOURCE-to-TARGET`, each an engine name (an engine into itself is `E-to-E`).
 * The short names of the routes that came first stay as aliases; an alias resolves to its full id
 * everywhere (workload `route:`, `--route`, scenario files), and a certification names the full id.
 * A target alias names "any source into that engine", so it resolves by the source URL's engine.
 * Which names an engine has is the engine's (its registration's `naming`): src/cli/route-names.ts
 * derives the tables (RouteNames) and resolves with them; this module holds only the rules.
 */

/** How engines are named besides their names, as route-names.ts derives it from the registrations. */
export interface RouteNames {
  /** Alias → full route id (`E` → `E-to-E`), in the engine table's order. */
  readonly routeAliases: Readonly<Record<string, string>>;
  /** Target alias → its target engine (the source is the source URL's engine). */
  readonly targetAliases: Readonly<Record<string, string>>;
  /** URL scheme → engine, for the schemes that differ from an engine's name. */
  readonly schemes: Readonly<Record<string, string>>;
}

const ENGINE = '[a-z][a-z0-9]*';
const FULL_ID = new RegExp(`^(${ENGINE})-to-(${ENGINE})$`);

export interface RouteParts {
  readonly id: string;
  readonly source: string;
  readonly target: string;
}

/** The engine a connection URL names by its scheme, or null when it has no scheme. */
export function urlEngineIn(names: RouteNames, url: string): string | null {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url.trim())?.[1]?.toLowerCase();
  if (scheme === undefined) return null;
  return Object.hasOwn(names.schemes, scheme) ? names.schemes[scheme]! : scheme;
}

/**
 * The full id and engines of `route` (an id or an alias), or null when it is neither. `sourceUrl`
 * resolves a target alias (`<alias>` → `<engine of the source URL>-to-<alias's engine>`).
 */
export function resolveRouteIdIn(names: RouteNames, route: string, sourceUrl?: string): RouteParts | null {
  const aliased = Object.hasOwn(names.routeAliases, route) ? names.routeAliases[route]! : route;
  const target = Object.hasOwn(names.targetAliases, route) ? names.targetAliases[route]! : null;
  const full =
    target !== null ? `${(sourceUrl && urlEngineIn(names, sourceUrl)) || target}-to-${target}` : aliased;
  const match = FULL_ID.exec(full);
  return match ? { id: full, source: match[1]!, target: match[2]! } : null;
}

/** `SOURCE-to-TARGET`. */
export function routeIdOf(source: string, target: string): string {
  return `${source}-to-${target}`;
}
