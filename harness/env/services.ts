import { DponeError, ERROR_CODES } from '../../src/contracts/errors.ts';
import type { EmbeddedEntry, ServiceEntry } from './service-entry.ts';
import type { ToxiproxyService } from './toxiproxy-service.ts';

/** Toxiproxy's service: the one service the providers run themselves, apart from the engines'. */
export const TOXIPROXY = 'toxiproxy';

/**
 * A service a route's parts need started: an engine's server service, named as its engine is in
 * the harness registry (routes/route-registry.ts), or Toxiproxy.
 */
export type ServiceName = string;

/**
 * The services a provider starts for a route: exactly those its parts declare (a source, target
 * or journal part names what it needs), so the embedded route starts nothing and a route whose
 * only server is its target starts no other. Each engine's service is kept under its engine's
 * name, as its own entry's type (the engine's parts read it back with that type).
 */
export interface EnvironmentServices {
  readonly toxiproxy?: ToxiproxyService;
  readonly [engine: string]: unknown;
}

/**
 * The engines' server services the providers can start, by engine name, in the order they start
 * them. The harness registry lists them (routes/engine-services.ts); a provider receives them in
 * its start options, so the environment floor names no engine and imports nothing above it.
 */
export type EngineServices = Readonly<Record<string, ServiceEntry<unknown>>>;

/** What a provider knows of the engines: what it passes to EnvironmentStartOptions.engines. */
export interface EnvironmentEngines {
  /** The engine inside Node, by name: the embedded and local providers record its version. */
  readonly embedded: { readonly name: string; readonly entry: EmbeddedEntry };
  readonly services: EngineServices;
}

/** The asked services that are engines', in their start order. */
export function engineServicesAsked(engines: EngineServices, services: readonly ServiceName[]): string[] {
  return Object.keys(engines).filter((name) => services.includes(name));
}

/** What a service is, for one-line reasons ("needs SQL Server"). */
export function serviceLabel(engines: EngineServices, name: ServiceName): string {
  return name === TOXIPROXY ? 'Toxiproxy' : (engines[name]?.label ?? name);
}

/**
 * An engine's service as the provider started it for a cell: kept under the engine's name, as its
 * own entry's type (the engine's parts read it back with that type). A provider that started none
 * for a route that needs it: ENVIRONMENT_UNAVAILABLE, naming the server by `label`.
 */
export function startedService<T>(
  environment: { readonly provider: string; readonly services: EnvironmentServices },
  engine: string,
  label: string,
): T {
  const service = environment.services[engine] as T | undefined;
  if (!service)
    throw new DponeError(
      ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
      `this route needs ${label}; provider ${environment.provider} started none`,
    );
  return service;
}
