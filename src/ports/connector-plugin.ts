import type { FenceCapabilityKind, SourceConnector, TargetConnector } from './connector.ts';
import type { FaultPoints } from './fault-points.ts';

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

export interface TargetOpenContext {
  /** Fault points the target hits inside its steps (`target.commit:before`, …); no-ops outside the harness. */
  readonly faults: FaultPoints;
  /**
   * True for recovery commands: only `queryFence` will be called, and opening must create
   * nothing (no file, table or fence) and change nothing on the target.
   */
  readonly readOnly: boolean;
}

/** The target a plug-in supplies. */
export interface PluginTarget {
  /** The fence capability it certifies (spec "Connector capability contract"). */
  readonly capability: FenceCapabilityKind;
  /** Where the fence lives for this endpoint, as a safe identity, without I/O (TargetConnector.fenceLocation). */
  fenceLocation(endpoint: ConnectorEndpoint): string;
  open(endpoint: ConnectorEndpoint, context: TargetOpenContext): Promise<TargetConnector>;
  /**
   * Deliberately broken variants for the certification's sensitivity check, by catalogue name
   * (src/ports/unsafe-variants.ts: those really unsafe on `capability`). The host opens one only
   * for a process the harness started (DPONE_HARNESS=1 and DPONE_UNSAFE_VARIANT).
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
}

/** The source a plug-in supplies (a workload names it with `source.connector`). */
export interface PluginSource {
  open(endpoint: ConnectorEndpoint): Promise<SourceConnector>;
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
    if (target.openPlain !== undefined && typeof target.openPlain !== 'function')
      return 'target.openPlain must be a function';
  }
  const source = plugin.source as Partial<PluginSource> | undefined;
  if (source !== undefined && typeof source.open !== 'function') return 'source needs open()';
  if (target === undefined && source === undefined) return 'it supplies neither a target nor a source';
  return null;
}

/** Identity helper for authors: types the object and keeps `api` right. */
export function defineConnector<Harness>(
  plugin: Omit<ConnectorPlugin<Harness>, 'api'>,
): ConnectorPlugin<Harness> {
  return { api: CONNECTOR_PLUGIN_API, ...plugin };
}
