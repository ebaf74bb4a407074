import { invalidInput } from '../contracts/errors.ts';
import type { EndpointSpec, Workload } from '../contracts/workload.ts';
import type { SourceConnector, TargetConnector } from './connector.ts';
import type { FaultPoints } from './fault-points.ts';
import type { JournalWarn, TargetCommitJournalPort } from './journal.ts';
import type { ShadowJournal } from './shadow-journal.ts';

/**
 * What a built-in engine's folder (`connectors/<engine>/engine.ts`) registers with the runtime: how
 * to open its source and its target for a workload, and what the recovery commands need from it.
 * Here, in the ports, so an engine folder reaches only contracts and ports (never src/cli), and the
 * built-in engines table (src/cli/built-in-engines.ts) holds one line per engine.
 */

export interface RouteContext {
  readonly env: NodeJS.ProcessEnv;
  /** Passed to the target so its inner steps (e.g. `target.commit:before`) are fault points too. */
  readonly faults: FaultPoints;
  /** Recovery commands: only the fence is read, and opening must create nothing. */
  readonly readOnly?: boolean;
  /**
   * Where a workload field is written (`file:line:column`), for a refusal of the field to name
   * it; the built-in engines table passes one (it reads the workload file again, so ask only
   * when refusing).
   */
  readonly locate?: (field: string) => Promise<string>;
  /**
   * The run's log, for what a connector decided that changes no outcome but is worth saying (e.g.
   * a faster copy path it could not take, and why); names and types only, never a row value.
   */
  readonly note?: (message: string) => void;
}

export type OpenSource = (workload: Workload, context: RouteContext) => Promise<SourceConnector>;
export type OpenTarget = (workload: Workload, context: RouteContext) => Promise<TargetConnector>;

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

/** How to open a source of one engine. */
export interface SourceEngine {
  /**
   * The connector's human name and version (`<engine>-source/1`), shown in evidence and records. What
   * binds a certification is the code digest of the engine's folder, never this string.
   */
  readonly version: string;
  readonly open: OpenSource;
}

/** How to open a target of one engine, and what it certifies. */
export interface TargetEngine {
  /** The connector's human name and version (as SourceEngine.version). */
  readonly version: string;
  /** The fence capability the target certifies (known before it is opened). */
  readonly capability: TargetConnector['capability'];
  /** Where the target's fence lives for this workload (TargetConnector.fenceLocation), without I/O. */
  readonly fenceLocation: (workload: Workload) => Promise<string>;
  readonly open: OpenTarget;
  /** The same target written without a fence (`target.fence: none`), where the connector has one. */
  readonly openPlainTarget?: OpenTarget;
  /**
   * A reader of the fence alone, on a connection that cannot change the target (recovery
   * commands); without one, recovery reads through the target connector's queryFence.
   */
  readonly openFenceReader?: (workload: Workload, env: NodeJS.ProcessEnv) => Promise<FenceReader>;
  /**
   * A reader that may also raise the fence's epoch for recovery apply, sending only the fence
   * statements (no DDL); without one, apply opens the target whole, whose prepareFence with
   * `create: false` only raises.
   */
  readonly openFenceRaiser?: (workload: Workload, env: NodeJS.ProcessEnv) => Promise<FenceRaiser>;
  /**
   * What an operation that never committed leaves in the target outside its commit (staging
   * tables, tombstones); without one, the target leaves nothing (data and marker in one transaction).
   */
  readonly openLeftovers?: (
    workload: Workload,
    env: NodeJS.ProcessEnv,
    readOnly: boolean,
  ) => Promise<Leftovers>;
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
}

/** One built-in engine: the entry its folder's engine.ts exports and the engines table lists. */
export interface BuiltInEngine {
  /**
   * The engine's folder (`connectors/<engine>/`): its production files and what they import are the
   * connector code a certification binds (src/cli/route-code.ts digests it, harness/ left out).
   */
  readonly folder: string;
  readonly source?: SourceEngine;
  readonly target?: TargetEngine;
  /** A journal on the engine's server, where the engine keeps one (`connectors/<engine>/journal/`). */
  readonly journal?: JournalEngine;
  /** What the engine refuses in a workload when it is read. */
  readonly workload?: WorkloadRules;
}

/**
 * A server endpoint's canonical location for WorkloadRules.location: `engine://host:port/path#table`,
 * the host lower-cased, the engine's default port and schema filled in, the table lower-cased where
 * the server compares names case-insensitively; null for a URL that does not parse.
 */
export function serverLocation(
  engine: string,
  endpoint: EndpointSpec,
  rules: { readonly port: string; readonly schema?: string; readonly foldCase?: boolean },
): string | null {
  let url: URL;
  try {
    url = new URL(endpoint.url);
  } catch {
    return null;
  }
  const table =
    endpoint.table.includes('.') || rules.schema === undefined
      ? endpoint.table
      : `${rules.schema}.${endpoint.table}`;
  const shown = rules.foldCase ? table.toLowerCase() : table;
  return `${engine}://${url.hostname.toLowerCase()}:${url.port || rules.port}${url.pathname}#${shown}`;
}

/** The password of an endpoint, read only from the environment variable the workload names. */
export function endpointPassword(
  endpoint: EndpointSpec,
  field: string,
  env: NodeJS.ProcessEnv,
): string | undefined {
  if (!endpoint.password_env) return undefined;
  const password = env[endpoint.password_env];
  if (password === undefined) {
    throw invalidInput(`${field}.password_env names ${endpoint.password_env}, which is not set`, {
      field: `${field}.password_env`,
    });
  }
  return password;
}

/** The options every server source takes: URL, password from its env variable, table, columns. */
export function serverSource(workload: Workload, env: NodeJS.ProcessEnv) {
  const password = endpointPassword(workload.source, 'source', env);
  return {
    url: workload.source.url,
    ...(password === undefined ? {} : { password }),
    table: workload.source.table,
    columns: workload.data.columns,
  };
}

/** The options every server target takes, before its own (faults, env, partition column). */
export function serverTarget(workload: Workload, env: NodeJS.ProcessEnv) {
  const password = endpointPassword(workload.target, 'target', env);
  const fenceSchema = workload.target.fence_schema;
  return {
    url: workload.target.url,
    ...(password === undefined ? {} : { password }),
    table: workload.target.table,
    columns: workload.data.columns,
    naturalKey: workload.data.natural_key,
    ...(fenceSchema === undefined ? {} : { fenceSchema }),
  };
}
