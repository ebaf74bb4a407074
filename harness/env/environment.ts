import type { EnvironmentEngines, EnvironmentServices, ServiceName } from './services.ts';

/**
 * Environment providers: what a route needs started before its cells run (nothing for the
 * embedded route; the servers its parts name otherwise). A provider either returns a started,
 * async-disposable environment or says why it cannot, and then every cell of the run is
 * UNVERIFIED with that reason.
 *
 * To add a provider: write harness/env/<name>-provider.ts exporting a `provider`, and add one line
 * to ENVIRONMENT_PROVIDERS in environment-registry.ts (lazy, so `embedded` never loads a server
 * driver).
 */
export interface StartedEnvironment extends AsyncDisposable {
  /** Provider name as recorded in the evidence: embedded | local | docker | external. */
  readonly provider: string;
  /**
   * Versions for `evidence.environment.databases`, by engine: the embedded engine's (where the
   * provider runs it), then each server's as started, e.g. {"<engine>": "15.18"}.
   */
  readonly databases: Readonly<Record<string, string>>;
  /** Toxiproxy version when the environment runs one, else null. */
  readonly toxiproxy: string | null;
  /**
   * The services started for the route's parts (services.ts). A part checks what it needs and
   * throws DPONE_ENVIRONMENT_UNAVAILABLE when it is missing.
   */
  readonly services: EnvironmentServices;
}

export type EnvironmentResult =
  | { readonly status: 'started'; readonly environment: StartedEnvironment }
  | { readonly status: 'unverified'; readonly reason: string };

export interface EnvironmentStartOptions {
  readonly env: NodeJS.ProcessEnv;
  /** Scratch directory for the run (server data dirs go below it). */
  readonly workDir: string;
  /** What the route's parts need started; a provider starts only these. */
  readonly services: readonly ServiceName[];
  /**
   * The engines it can start or report, from the harness registry (routes/engine-services.ts
   * `ENVIRONMENT_ENGINES`): handed down, since the registry sits on a floor above the providers.
   */
  readonly engines: EnvironmentEngines;
}

export interface EnvironmentProvider {
  readonly name: string;
  /**
   * Starts the services asked for. Never throws for a missing server: it returns `unverified`
   * naming what is missing, quickly (before starting anything when it can tell up front).
   */
  start(options: EnvironmentStartOptions): Promise<EnvironmentResult>;
}
