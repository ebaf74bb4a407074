import type { InstallHints } from '../env/install-hints.ts';
import { installHints } from '../env/install-hints.ts';
import type { EngineComponents, EngineUses, OwnServerFault, ServiceEntry } from '../env/service-entry.ts';
import type { EngineServices, EnvironmentEngines, EnvironmentServices } from '../env/services.ts';
import { CONNECTOR_PARTS } from './route-registry.ts';

/**
 * What the harness registry's engines give the environment and `dpone doctor`, derived from their
 * entries (route-registry.ts CONNECTOR_PARTS), so nothing here or below names an engine: the
 * server services the providers start (in the registry's order), the engine inside Node, their
 * components' install hints, and the questions the faults and the runner ask of a started
 * environment. The providers sit below this floor and get ENVIRONMENT_ENGINES in their start
 * options.
 */

/** The engines' server services, by engine name, in the order the providers start them. */
export const ENGINE_SERVICES: EngineServices = Object.fromEntries(
  Object.entries(CONNECTOR_PARTS).flatMap(([engine, entry]) =>
    entry.service ? [[engine, entry.service] as const] : [],
  ),
);

/** The engines as the environment providers need them (EnvironmentStartOptions.engines). */
export const ENVIRONMENT_ENGINES: EnvironmentEngines = {
  embedded: embeddedEngine(),
  services: ENGINE_SERVICES,
};

function embeddedEngine(): EnvironmentEngines['embedded'] {
  const found = Object.entries(CONNECTOR_PARTS).flatMap(([name, entry]) =>
    entry.embedded ? [{ name, entry: entry.embedded }] : [],
  );
  if (found.length !== 1)
    throw new TypeError(
      `exactly one engine must run inside Node (found: ${found.map(({ name }) => name).join(', ') || 'none'})`,
    );
  return found[0]!;
}

/** Every engine's components `dpone doctor` probes: the embedded engine's, then each service's. */
export const ENGINE_COMPONENTS: readonly EngineComponents[] = [
  ENVIRONMENT_ENGINES.embedded.entry,
  ...Object.values(ENGINE_SERVICES),
];

/**
 * What `dpone doctor` lists for each engine (its entry's `doctor.uses`), in the registry's order,
 * with whether it runs a server (a route with one needs the provider's tools) and whether it is
 * the engine inside Node (its own route on the embedded provider is the default use).
 */
export const ENGINE_USES: readonly {
  readonly engine: string;
  readonly server: boolean;
  readonly embedded: boolean;
  readonly uses: EngineUses;
}[] = Object.entries(CONNECTOR_PARTS).flatMap(([engine, entry]) => {
  const components = entry.service ?? entry.embedded;
  return components
    ? [
        {
          engine,
          server: entry.service !== undefined,
          embedded: entry.embedded !== undefined,
          uses: components.doctor.uses,
        },
      ]
    : [];
});

const HINTS: InstallHints = installHints(ENGINE_COMPONENTS);

/**
 * How each component is installed here, or what to do when nothing here can install it: what
 * `dpone doctor` prints beside a missing component, and what the reports print beside the cells
 * that could not run for want of it.
 */
export const INSTALL = HINTS.install;

/** The component an UNVERIFIED reason says is missing, or null when it names none doctor knows. */
export const missingComponent = HINTS.missingComponent;

/**
 * Whether a started service offers a cell a server of its own that `fault` can drive (its entry's
 * `ownServer`): the services started are the route's, so this asks the route's engines without
 * naming one.
 */
export function ownsServerFor(services: EnvironmentServices, fault: OwnServerFault): boolean {
  return Object.entries(ENGINE_SERVICES).some(([name, entry]) =>
    offersOwnServer(entry, services[name], fault),
  );
}

/**
 * Why no started service offers the pooler lane a pooler (the first reason of an engine that has
 * one, ServiceEntry.pooler), or null when one does.
 */
export function poolerMissing(services: EnvironmentServices, provider: string): string | null {
  const reasons = Object.entries(ENGINE_SERVICES).flatMap(([name, entry]) =>
    entry.pooler ? [entry.pooler.missing(services[name], provider)] : [],
  );
  if (reasons.length === 0) return `this provider (${provider}) starts no pooler: the pooler lane cannot run`;
  return reasons.includes(null) ? null : reasons[0]!;
}

function offersOwnServer(entry: ServiceEntry<unknown>, service: unknown, fault: OwnServerFault): boolean {
  return (
    service !== undefined &&
    entry.ownServer?.faults.includes(fault) === true &&
    entry.ownServer.offered(service)
  );
}
