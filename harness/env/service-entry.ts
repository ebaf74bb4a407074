import type { StartedNetwork } from 'testcontainers';
import type { FaultKind } from '../scenario/scenario-schema.ts';

/**
 * The faults that drive a server a cell owns (harness/routes/server-control.ts): `server-kill`
 * kills and restarts it, `stall` SIGSTOPs its backends, `lost-commit` fails it over to a standby.
 */
export type OwnServerFault = Extract<FaultKind, 'server-kill' | 'stall' | 'lost-commit'>;

/** One component of an engine as `dpone doctor` found it on this machine (its install hint is the entry's). */
export interface ProbedComponent<C extends string = string> {
  readonly id: C;
  readonly name: string;
  readonly present: boolean;
  /** What was found (version, path) or why it is missing: safe text, no credentials. */
  readonly detail: string;
}

/**
 * What `dpone doctor` and the reports know of one engine's components on this machine (its server
 * and any tool beside it, or the engine inside Node): their install hints, the words that name
 * them in a reason, and how doctor probes them. Both a server service (ServiceEntry) and the
 * embedded engine (EmbeddedEntry) give it.
 */
export interface EngineComponents<C extends string = string> {
  /**
   * What `dpone doctor` prints beside each component of this engine it probes, and what the
   * reports print beside the cells that could not run for want of one (install-hints.ts).
   */
  readonly install: {
    readonly hints: Readonly<Record<C, string>>;
    /**
     * Words in an UNVERIFIED reason that name one of these components, each with its precedence
     * among all matchers (lower is tried first; install-hints.ts ranks the generic ones).
     */
    readonly matchers: readonly (readonly [pattern: RegExp, component: C, rank: number])[];
  };
  /** What `dpone doctor` probes for it, and the uses it lists for it. */
  readonly doctor: {
    /** What doctor lists for this engine (harness/doctor/doctor.ts derives its lines from these). */
    readonly uses: EngineUses<C>;
    /**
     * Optional: an example URL of this engine's server for the external provider's line of
     * `dpone doctor` (its `external.requiredEnv` with Toxiproxy's); doctor shows the first engine
     * that gives one, so doctor-probes.ts names no engine. Absent: doctor's external line is not this engine's.
     */
    readonly externalExample?: string;
    /**
     * Each component as found here, with its place among all of doctor's components (lower is
     * listed first; doctor-probes.ts ranks the generic ones). `nodeSupported`: whether this Node
     * is one the project runs on (an engine that comes with Node is missing in any other).
     */
    probe(context: {
      readonly env: NodeJS.ProcessEnv;
      readonly isRoot: boolean;
      readonly nodeSupported: boolean;
    }): Promise<readonly (readonly [component: ProbedComponent<C>, rank: number])[]>;
  };
}

/**
 * What `dpone doctor` lists for one engine, naming only itself: harness/doctor/doctor.ts derives
 * its lines from every engine's (a composed route's from the entries of its two ends) and adds
 * Node and each provider's own tools (Toxiproxy on the local provider, the Docker engine, the
 * external provider's variables).
 */
export interface EngineUses<C extends string = string> {
  /**
   * Each environment provider that can run this engine, with the components of this engine a
   * route with it at one end needs there (none: the provider brings it).
   */
  readonly providers: Readonly<Record<string, readonly C[]>>;
  /**
   * Its own route (both ends this engine, `<e>-to-<e>`) on each provider it lists, with the
   * command that runs it and what its own lanes need beyond the two ends (e.g. a pooler).
   */
  readonly ownRoute?: readonly {
    readonly provider: string;
    readonly command: string;
    readonly needs?: readonly C[];
  }[];
  /**
   * Uses that are no route (e.g. its live tests, named by the engine), each with the components
   * it needs beside Node.
   */
  readonly lanes?: readonly {
    readonly provider: string;
    readonly command: string;
    readonly needs: readonly C[];
  }[];
}

/**
 * The engine that runs inside Node (no server to start): the environment providers that run it
 * (embedded, local) record its version first in `evidence.environment.databases`. An engine keeps
 * its entry in `connectors/<engine>/harness/env/`; its harness registration carries it.
 */
export interface EmbeddedEntry<C extends string = string> extends EngineComponents<C> {
  /** Its version in this Node, e.g. "3.50.4" (its driver loaded only when asked). */
  version(): Promise<string>;
}

/**
 * What one engine's server service tells the generic environment providers, so they name no
 * engine: an engine keeps its entry in `connectors/<engine>/harness/env/service.ts`, and its
 * harness entry (`connectors/<engine>/harness/engine.ts`, one line of the harness registry) carries
 * it; the providers get it in their start options (services.ts EngineServices). Whatever loads a
 * driver is behind a lazy import.
 */
export interface ServiceEntry<S, C extends string = string> extends EngineComponents<C> {
  /** What the service is, for one-line reasons ("needs SQL Server"). */
  readonly label: string;
  /**
   * Optional: the servers of its own a started service may offer a cell (where the provider owns
   * servers: `offered`), and which server faults such a server serves. The faults ask this
   * (routes/engine-services.ts `ownsServerFor`) instead of naming an engine; absent: no fault
   * kills its server.
   */
  readonly ownServer?: {
    readonly faults: readonly OwnServerFault[];
    offered(service: S): boolean;
  };
  /**
   * Optional: the pooler lane's pooler (a workload's `pooler` mode puts the workers' connections
   * through one in front of this service's server). `missing` says why the started service (absent:
   * not started) offers none here, or null when it does; the runner asks it
   * (routes/engine-services.ts `poolerMissing`) instead of naming an engine. Absent: this engine
   * has no pooler lane.
   */
  readonly pooler?: {
    missing(service: S | undefined, provider: string): string | null;
  };
  /** How the `external` provider finds the user's own server. */
  readonly external: {
    /** The variables it cannot do without (the server's URL and password), in the order it asks for them. */
    readonly requiredEnv: readonly string[];
    /**
     * Checks the login and creates only throw-away things, or says why not in one line. A service
     * that is also AsyncDisposable is disposed with the environment.
     */
    start(env: NodeJS.ProcessEnv): Promise<S | string>;
  };
  /** How the `local` provider runs it from this machine's binaries. */
  readonly local: {
    /** Why this machine cannot run it, in one line, or null; checked before anything starts. */
    missing(env: NodeJS.ProcessEnv): string | null;
    /** Starts it (what it starts goes into `owned`, disposed with the environment) and reads its version. */
    start(env: NodeJS.ProcessEnv, owned: AsyncDisposable[]): Promise<{ service: S; version: string }>;
  };
  /** How the `docker` provider runs it: the image (docker/compose.yaml uses the same) and its container. */
  readonly docker: {
    readonly image: string;
    /** Starts the container on the run's network (alias: the service name) and owns it. */
    start(network: StartedNetwork, owned: AsyncDisposable[]): Promise<S>;
  };
}
