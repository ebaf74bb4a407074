import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { invalidInput } from '../../src/contracts/errors.ts';
import { routeIdOf } from '../../src/contracts/route-id.ts';
import { ROUTE_ALIASES, resolveRouteId } from '../../src/cli/route-names.ts';
import { BUILT_IN_CONNECTORS, SOURCE_ENGINES, TARGET_ENGINES } from '../../src/cli/engine-table.ts';
import type { BuiltInConnector } from '../../src/cli/engine-table.ts';
import type { ServiceName } from '../env/services.ts';
import { TOXIPROXY } from '../env/services.ts';
import { composeRoute } from './compose-route.ts';
import type { EmbeddedHost } from './parts.ts';
import type { ConnectorPartsEntry, JournalPart, PartRole } from './parts.ts';
import type { Route } from './route.ts';

/**
 * The harness registry: each built-in engine's entry, `harness` exported by `harness/engine.ts` in
 * the folder its runtime registration names (src/cli/engine-table.ts, ConnectorPlugin.folder):
 * which roles it can play, its parts (loaded only when a route uses it), its server service or,
 * for the engine inside Node, its version and doctor probe, its gate lines. The engine table's ONE
 * line per engine is the only list: adding an engine is its folder (`engine.ts`, and
 * `harness/engine.ts` beside `harness/parts.ts`) plus that line. Every route is derived from these
 * entries, in the engine table's order; the environment providers and `dpone doctor` read them
 * through engine-services.ts.
 */
export const CONNECTOR_PARTS: Readonly<Record<string, ConnectorPartsEntry>> = Object.fromEntries(
  await Promise.all(
    Object.entries(BUILT_IN_CONNECTORS).map(async ([name, engine]) => [
      name,
      await harnessEntry(name, engine),
    ]),
  ),
);

/** `harness` of the engine's `harness/engine.ts`; a built-in without one is a broken build. */
async function harnessEntry(name: string, engine: BuiltInConnector): Promise<ConnectorPartsEntry> {
  const module = (await import(pathToFileURL(join(engine.folder, 'harness', 'engine.ts')).href)) as {
    readonly harness?: ConnectorPartsEntry;
  };
  if (!module.harness)
    throw new TypeError(`built-in engine ${name}: its harness/engine.ts exports no \`harness\``);
  return module.harness;
}

/**
 * The journal used when no server of the route keeps one: the engine whose entry declares an
 * embedded journal (ConnectorPartsEntry.embeddedJournal), so this module branches on no engine.
 */
const EMBEDDED_JOURNAL = embeddedJournal();

/** The embedded engine: its name is its own route's alias (the harness's default route). */
export const EMBEDDED_ENGINE = EMBEDDED_JOURNAL;

function embeddedJournal(): string {
  const engines = Object.keys(CONNECTOR_PARTS).filter(
    (engine) => CONNECTOR_PARTS[engine]!.embeddedJournal === true,
  );
  if (engines.length !== 1)
    throw new TypeError(
      `exactly one connector must declare an embedded journal (found: ${engines.join(', ') || 'none'})`,
    );
  return engines[0]!;
}

/** What plug-in routes borrow from the embedded engine (its parts' pluginHost), loaded when first asked. */
export async function embeddedHost(): Promise<EmbeddedHost> {
  const host = (await CONNECTOR_PARTS[EMBEDDED_JOURNAL]!.load()).pluginHost;
  if (!host)
    throw new TypeError(`the embedded engine ${EMBEDDED_JOURNAL} supplies no pluginHost in its parts`);
  return host;
}

const plays = (engine: string, role: PartRole) => CONNECTOR_PARTS[engine]?.roles.includes(role) === true;

/**
 * The journal a route's cells use: the server journal of a server the route already has (its
 * target's engine first, then its source's, when the target keeps none), else the embedded
 * engine's file journal. A route never starts a server only for its journal. The evidence names it
 * (`environment.journal`).
 */
export function journalEngine(source: string, target: string): string {
  return (
    [target, source].find((engine) => engine !== EMBEDDED_JOURNAL && plays(engine, 'journal')) ??
    EMBEDDED_JOURNAL
  );
}

/**
 * Every route the harness can certify: each source part with each target part, for engines the
 * runtime has connectors for (src/cli/engine-table.ts). Keyed by full id.
 */
export const ROUTES: Readonly<Record<string, () => Promise<Route>>> = Object.fromEntries(
  Object.keys(CONNECTOR_PARTS)
    .filter((source) => plays(source, 'source') && Object.hasOwn(SOURCE_ENGINES, source))
    .flatMap((source) =>
      Object.keys(CONNECTOR_PARTS)
        .filter((target) => plays(target, 'target') && Object.hasOwn(TARGET_ENGINES, target))
        .map((target) => [routeIdOf(source, target), () => loadComposed(source, target)] as const),
    ),
);

/**
 * Every service a part may need, in the order the providers start them (the engines' servers in
 * the registry's order, then Toxiproxy): a route lists its own in this order.
 */
export const SERVICE_ORDER: readonly ServiceName[] = [
  ...Object.keys(CONNECTOR_PARTS).filter((engine) => CONNECTOR_PARTS[engine]!.service !== undefined),
  TOXIPROXY,
];

async function loadComposed(source: string, target: string): Promise<Route> {
  const journal = journalEngine(source, target);
  const [sourceParts, targetParts, journalParts] = await Promise.all(
    [source, target, journal].map((engine) => CONNECTOR_PARTS[engine]!.load()),
  );
  return composeRoute(
    sourceParts!.source!,
    targetParts!.target!,
    journalParts!.journal as JournalPart,
    SERVICE_ORDER,
  );
}

export function routeIds(): readonly string[] {
  return Object.keys(ROUTES).sort();
}

/** The route aliases (src/contracts/route-id.ts) that name a route the harness has, in their order. */
export function routeAliases(): readonly string[] {
  return Object.keys(ROUTE_ALIASES).filter((alias) => Object.hasOwn(ROUTES, ROUTE_ALIASES[alias]!));
}

/** The full id of a route id or alias the harness knows, or bad input naming `field`. */
export function harnessRouteId(route: string, field = '--route'): string {
  const id = resolveRouteId(route)?.id ?? route;
  if (!Object.hasOwn(ROUTES, id))
    throw invalidInput(
      `unknown route "${route}" (known: ${routeIds().join(', ')}; aliases: ${routeAliases().join(', ')})`,
      {
        field,
      },
    );
  return id;
}

/** Loads a route by id or alias. */
export function loadRoute(route: string, field = '--route'): Promise<Route> {
  return ROUTES[harnessRouteId(route, field)]!();
}
