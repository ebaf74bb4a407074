import type { UnsafeCatalogue } from './unsafe-variants.ts';
import type { Workload } from '../contracts/workload.ts';
import type { FenceCapabilityKind, SourceConnector, TargetConnector } from './connector.ts';
import type { FaultPoints } from './fault-points.ts';
import type { JournalWarn, TargetCommitJournalPort } from './journal.ts';
import type { ShadowJournal } from './shadow-journal.ts';

/**
 * A connector plug-in: a module outside this repository that supplies a target (and/or a source)
 * implementing the ports, the fence capability it certifies, its deliberately unsafe variants and
 * its harness parts. A workload names it (`target.connector: <npm package or path>`) and `dpone
 * run` / `dpone certify run` load it without any edit here. Its version, `<meta.name>@<meta.version>`,
 * is shown in evidence and records; a certification binds the plug-in's files by digest, so
 * `protection: enforced` applies to exactly the code certified.
 */
export const CONNECTOR_PLUGIN_API = 'dpone.connector/v1';

/** What the host hands a plug-in to open one endpoint of a workload. */
export interface ConnectorEndpoint {
  /** The endpoint's URL as the workload wrote it (never with a password). */
  readonly url: string;
  readonly table: string;
  /** The workload's data columns, in order; the rows of a stream carry values in this order. */
  readonly columns: readonly string[];
  readonly naturalKey: readonly string[];
  readonly partitionColumn: string;
  /** The workload file's folder: a relative path in `url` resolves against it. */
  readonly baseDir: string;
  /** The password from the variable the workload's `password_env` names, when it names one. */
  readonly password?: string;
  /** Where the endpoint is in the workload (`target`, `source`), for error fields. */
  readonly field: string;
}

/**
 * What the host knows beyond the endpoint (extension of v1, additive: the host always gives it,
 * a plug-in may ignore it). The built-in engines read their settings beyond the endpoint from the
 * parsed workload (`target.fence_schema`, `target.create`, the data's partition column, the
 * workload file's path), their passwords from `env` (by the workload's `password_env`), and say
 * where a refused field is written through `locate`.
 */
export interface HostContext {
  /** The workload as the host parsed it (never holds a password: those stay in the environment). */
  readonly workload: Workload;
  /** The process environment the run was started with. */
  readonly env: NodeJS.ProcessEnv;
  /**
   * Where a workload field is written (`file:line:column`), for a refusal of the field to name it
   * (it reads the workload file again: ask only when refusing).
   */
  readonly locate?: (field: string) => Promise<string>;
  /**
   * The run's log, for what a connector decided that changes no outcome but is worth saying (e.g. a
   * faster copy path it could not take, and why); names and types only, never a row value.
   */
  readonly note?: (message: string) => void;
}

export interface TargetOpenContext extends Partial<HostContext> {
  /** Fault points the target hits inside its steps (`target.commit:before`, …); no-ops outside the harness. */
  readonly faults: FaultPoints;
  /**
   * True for recovery commands: only `queryFence` will be called, and opening must create
   * nothing (no file, table or fence) and change nothing on the target.
   */
  readonly readOnly: boolean;
}

/** What a source is opened with beyond its endpoint (HostContext; optional for v1 plug-ins). */
export type SourceOpenContext = Partial<HostContext>;

/** Reads a target's fence without opening the target (recovery inspect/plan/apply). */
export type FenceReader = Pick<TargetConnector, 'queryFence'> & AsyncDisposable;

/** A fence reader that may also raise the fence's epoch (recovery apply fences first). */
export type FenceRaiser = FenceReader & Pick<TargetConnector, 'prepareFence'>;

/** One thing an operation left in its target outside its commit (a staging table or a tombstone). */
export interface LeftoverJSON {
  readonly name: string;
  readonly kind: 'staging' | 'tombstone';
  readonly epoch: number;
}

/** A route target's leftovers of an operation: listed by inspect, removed by cleanup. */
export interface Leftovers extends AsyncDisposable {
  list(operationId: string): Promise<LeftoverJSON[]>;
  cleanup(operationId: string, audit: { readonly actor: string; readonly reason: string }): Promise<string[]>;
}

/** What the recovery commands open a target's fence or leftovers with (HostContext, plus read-only). */
export interface RecoveryContext extends HostContext {
  /** inspect/plan: nothing may change on the target. */
  readonly readOnly: boolean;
}

/** The target a plug-in supplies. */
export interface PluginTarget {
  /** The fence capability it certifies (spec "Connector capability contract"). */
  readonly capability: FenceCapabilityKind;
  /**
   * Optional, read for a built-in engine only: the connector's shown name and version
   * (`<engine>-<capability>/<n>`) in evidence and records; a plug-in loaded from a module is shown
   * as `<meta.name>@<meta.version>`, whatever it says here.
   */
  readonly version?: string;
  /**
   * Where the fence lives for this endpoint, as a safe identity, without I/O
   * (TargetConnector.fenceLocation); it may answer a promise (e.g. to import its module lazily).
   */
  fenceLocation(
    endpoint: ConnectorEndpoint,
    context: { readonly workload: Workload },
  ): string | Promise<string>;
  open(endpoint: ConnectorEndpoint, context: TargetOpenContext): Promise<TargetConnector>;
  /**
   * Deliberately broken variants for the certification's sensitivity check, by catalogue name
   * (the shared catalogue, src/ports/unsafe-variants.ts, or a built-in engine's own: those really
   * unsafe on `capability`). The host opens one only for a process the harness started
   * (DPONE_HARNESS=1 and DPONE_UNSAFE_VARIANT).
   */
  readonly unsafeVariants?: readonly string[];
  openUnsafe?(
    variant: string,
    endpoint: ConnectorEndpoint,
    context: TargetOpenContext,
  ): Promise<TargetConnector>;
  /**
   * Optional: the same target written WITHOUT a fence (`target.fence: none`, capability `none`):
   * plain writes that can prove nothing afterwards, so every run that began the mutation ends
   * COMMIT_UNKNOWN and only an operator settles it. The returned connector must say capability
   * `none` (the host refuses anything else). Given, the certification also runs the fenceless cells
   * (crash, pause, race, recovery) and the variants unsafe without a fence.
   */
  openPlain?(endpoint: ConnectorEndpoint, context: TargetOpenContext): Promise<TargetConnector>;
  /**
   * Optional: a reader of the fence alone, on a connection that cannot change the target (recovery
   * inspect/plan/apply); without one, recovery opens the target read-only and reads its queryFence.
   */
  openFenceReader?(endpoint: ConnectorEndpoint, context: RecoveryContext): Promise<FenceReader>;
  /**
   * Optional: a reader that may also raise the fence's epoch (recovery apply), sending only the
   * fence statements (no DDL); without one, apply opens the target whole, whose prepareFence with
   * `create: false` only raises.
   */
  openFenceRaiser?(endpoint: ConnectorEndpoint, context: RecoveryContext): Promise<FenceRaiser>;
  /**
   * Optional: what an operation that never committed leaves in the target outside its commit
   * (staging tables, tombstones), listed by `recovery inspect` and removed by `recovery cleanup`;
   * without one, the target leaves nothing (data and fence in one transaction).
   */
  openLeftovers?(endpoint: ConnectorEndpoint, context: RecoveryContext): Promise<Leftovers>;
}

/** The source a plug-in supplies (a workload names it with `source.connector`). */
export interface PluginSource {
  /** Optional, read for a built-in engine only: its shown name and version (as PluginTarget.version). */
  readonly version?: string;
  open(endpoint: ConnectorEndpoint, context: SourceOpenContext): Promise<SourceConnector>;
}

/** How a journal URL is opened (src/cli/journal-url.ts decides the options, the engine the adapter). */
export interface JournalOpenOptions {
  readonly readOnly: boolean;
  readonly warn?: JournalWarn;
  /**
   * UNSAFE, the harness's `trust-holder-clock` variant only: the caller's clock instead of the
   * server's (a file journal trusts the expiry its writer stored).
   */
  readonly leaseClock?: 'caller';
  /** A file journal: the folder a relative path resolves against (the workload's, or the working folder). */
  readonly cwd: string;
  /** Which flag, workload key or default named the journal: a refused or damaged file says so. */
  readonly chosenBy: string;
  /** UNSAFE, the harness's `journal-sync-off`/`-normal` variants only: a file journal that does not sync its commits. */
  readonly unsafeSynchronous?: 'OFF' | 'NORMAL';
}

/**
 * How to open a commit journal one engine keeps (its URL scheme names the engine): on its server
 * (`server`: the URL names a host, the password comes from DPONE_JOURNAL_PASSWORD), or in a local
 * file (`file`: durable only where its URL says the file lives on shared storage).
 */
export interface JournalEngine {
  readonly kind: 'server' | 'file';
  readonly open: (
    url: string,
    password: string | undefined,
    options: JournalOpenOptions,
  ) => Promise<TargetCommitJournalPort>;
  /** A file journal's file: the path its URL names, a relative one against `cwd`; a bad URL is refused naming `field`. */
  readonly filePath?: (url: string, cwd: string, field: string) => string;
  /**
   * The runtime's default journal, one engine's (a file: it needs no server): its URL in a
   * workload's state folder, used when neither `--journal` nor the workload names one.
   */
  readonly defaultUrl?: (stateDir: string) => string;
  /** A file journal's shadow records file (openShadow's), whose absence means no shadow attempt was recorded. */
  readonly shadowFilePath?: (url: string, cwd: string) => string;
  /**
   * Shadow mode's records, kept beside the journal (src/cli/shadow-journal-url.ts opens them), where
   * the engine keeps them; `create: false` (the report) creates nothing; `cwd` as for open.
   */
  readonly openShadow?: (
    url: string,
    password: string | undefined,
    options: { readonly timeoutMs: number; readonly create: boolean; readonly cwd: string },
  ) => Promise<ShadowJournal>;
}

/**
 * What an engine refuses in a workload when the workload is read (DPONE_INVALID_INPUT naming the
 * field; the file reader adds `file:line:column`), before any route opens: names the engine would
 * resolve somewhere the operator did not mean. The workload reader asks the engine of each end.
 */
export interface WorkloadRules {
  /** Refuses the `side` endpoint's names (its table, URL options, the data's columns) on this engine. */
  readonly checkEndpoint?: (workload: Workload, side: 'source' | 'target') => void;
  /**
   * Where the `side` endpoint's rows live (the database's canonical location plus the qualified
   * table), so a target that is its own source is refused; null when it cannot be told without I/O.
   */
  readonly location?: (workload: Workload, side: 'source' | 'target') => string | null;
  /** `target.fence_schema` is a setting of this engine's target (its fence may live in a schema of its own). */
  readonly fenceSchema?: boolean;
  /**
   * Where the engine's target can create a missing target table (`target.create`): which column
   * types `target.create.columns` may give (nothing else reaches the DDL) and how a refusal
   * describes them. Absent, `target.create` is refused on routes into this engine.
   */
  readonly createColumnType?: { readonly test: (type: string) => boolean; readonly expected: string };
  /**
   * An endpoint URL of this engine that names a file relative to the workload's folder, made
   * absolute against `baseDir` (a copy of the workload run from another folder, such as an Airflow
   * try's, must name the same file); undefined when the URL is not this engine's or already absolute.
   */
  readonly absoluteUrl?: (url: string, baseDir: string) => string | undefined;
}

/** The object a plug-in module exports as `default` (or as `connector`). */
export interface ConnectorPlugin<Harness = unknown> {
  readonly api: typeof CONNECTOR_PLUGIN_API;
  /** npm package name (or any stable name) and version: the certified connector is exactly this pair. */
  readonly meta: { readonly name: string; readonly version: string };
  readonly target?: PluginTarget;
  readonly source?: PluginSource;
  /** Harness parts (`dpone-cert/testing` types): read only by `dpone certify run`. */
  readonly harness?: Harness;
  /*
   * Extension members a built-in engine registers (src/cli/engine-table.ts lists the built-ins);
   * the host reads them for an engine of that table only. A plug-in loaded from a module may leave
   * them out: its journal is a built-in engine's, its workload is checked by the host's rules, and
   * its code is its module file and what it imports.
   */
  /**
   * The engine's folder (`connectors/<engine>/`): its production files and what they import are
   * the connector code a certification binds (src/cli/route-code.ts digests it, harness/ left out).
   */
  readonly folder?: string;
  /** A journal the engine keeps (`<engine>://…` journal URLs open it), where it keeps one. */
  readonly journal?: JournalEngine;
  /** What the engine refuses in a workload when it is read. */
  readonly workload?: WorkloadRules;
  /** How workloads and URLs name the engine besides its name (src/cli/route-names.ts reads it). */
  readonly naming?: EngineNaming;
  /** What a certification of a route whose target is this engine must hold beyond the shared items. */
  readonly acceptance?: EngineAcceptance;
  /**
   * The engine's own unsafe variants, beyond the shared catalogue (src/ports/unsafe-variants.ts):
   * flaws only this engine can have (its storage, its protocol, its server, its journal), with
   * their descriptions. src/cli/unsafe-catalogue.ts assembles them with the shared ones; the
   * engine's target lists the ones it offers (harness parts) and implements them.
   */
  readonly unsafeCatalogue?: UnsafeCatalogue;
}

/**
 * The acceptance items of a route whose target is the engine (src/cli/route-acceptance.ts reads
 * them): a record must hold each PASS, by name, besides the mandatory ones every route has and the
 * plain-write item every target with `openPlain` has. The harness decides each from the cells (the
 * engine's harness entry lists its gate items: the same names, a test keeps them equal).
 */
export interface EngineAcceptance {
  /** The engine's own items, in the order a refusal lists them. */
  readonly targetItems: readonly string[];
  /** Where the plain-write item is listed among them: after (the default) or before. */
  readonly plainWriteItem?: 'before' | 'after';
}

/**
 * How a built-in engine is named besides its name: the URL schemes that mean it and whether its
 * name is a short route name (an alias that resolves everywhere a route id is read).
 */
export interface EngineNaming {
  /** URL schemes besides the engine's name that name it (a longer or a vendor spelling). */
  readonly schemes?: readonly string[];
  /**
   * The engine's name as a route alias: `route` names `E-to-E`; `target` names "any source into
   * E", resolved by the source URL's engine (`<source>-to-E`).
   */
  readonly alias?: 'route' | 'target';
  /**
   * Its URLs name a local file (`<scheme>:relative/path`, `<scheme>:///abs/path`): what follows `//`
   * is a path, not a host with a user part, so the password policy reads only their query.
   */
  readonly fileUrls?: true;
  /** How a sentence names the engine (its product's spelling), where that is not its name. */
  readonly label?: string;
}

/** The plug-in's human version (`<name>@<version>`), shown in evidence and records. */
export function pluginConnectorVersion(plugin: Pick<ConnectorPlugin, 'meta'>): string {
  return `${plugin.meta.name}@${plugin.meta.version}`;
}

const NAME = /^(@[a-z0-9][a-z0-9._-]*\/)?[a-z0-9][a-z0-9._-]*$/;
const VERSION = /^[0-9A-Za-z][0-9A-Za-z.+-]{0,63}$/;

/** What is wrong with a module's export as a plug-in (null: it is one). Never calls into it. */
export function pluginProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null) return 'it exports no connector object';
  const plugin = value as Partial<Record<keyof ConnectorPlugin, unknown>>;
  if (plugin.api !== CONNECTOR_PLUGIN_API) return `its api is not "${CONNECTOR_PLUGIN_API}"`;
  const meta = plugin.meta as { name?: unknown; version?: unknown } | undefined;
  if (typeof meta?.name !== 'string' || !NAME.test(meta.name))
    return 'meta.name is not a package name (lower case, digits, . _ -, optionally @scope/)';
  if (typeof meta.version !== 'string' || !VERSION.test(meta.version))
    return 'meta.version is not a version (e.g. 1.2.0)';
  const target = plugin.target as Partial<PluginTarget> | undefined;
  if (target !== undefined) {
    if (typeof target.open !== 'function' || typeof target.fenceLocation !== 'function')
      return 'target needs open() and fenceLocation()';
    if (typeof target.capability !== 'string') return 'target.capability is missing';
    if (target.unsafeVariants !== undefined && typeof target.openUnsafe !== 'function')
      return 'target.unsafeVariants needs target.openUnsafe()';
    for (const member of ['openPlain', 'openFenceReader', 'openFenceRaiser', 'openLeftovers'] as const)
      if (target[member] !== undefined && typeof target[member] !== 'function')
        return `target.${member} must be a function`;
  }
  const source = plugin.source as Partial<PluginSource> | undefined;
  if (source !== undefined && typeof source.open !== 'function') return 'source needs open()';
  if (target === undefined && source === undefined) return 'it supplies neither a target nor a source';
  return null;
}

/**
 * Identity helper for authors: types the object and keeps `api` right. Without a type argument it
 * keeps the object's own type (a built-in engine's `target.version` stays a string).
 */
export function defineConnector<
  Harness = unknown,
  Plugin extends Omit<ConnectorPlugin<Harness>, 'api'> = Omit<ConnectorPlugin<Harness>, 'api'>,
>(plugin: Plugin): Plugin & { readonly api: typeof CONNECTOR_PLUGIN_API } {
  return { api: CONNECTOR_PLUGIN_API, ...plugin };
}
