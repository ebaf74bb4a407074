import type { FenceReading } from '../evidence/evidence-types.ts';
import type { AuditedInsert, CellScalar } from '../checkers/target-snapshot.ts';

/**
 * The harness parts a connector plug-in exports (`ConnectorPlugin.harness`), so that `dpone certify
 * run` can certify it with no edit of this repository: which routes it forms with a built-in
 * source, and its target part (a fresh target per cell, the audit that counts mutations from the
 * target's own records, and the fence losses). Published through `dpone-cert/testing`.
 */
export interface PluginHarness {
  /** The routes this plug-in certifies: its id and the built-in source it pairs with. */
  readonly routes: readonly PluginRouteDeclaration[];
  readonly target: TargetPart;
  /** The fence losses its PreparedTarget.fence can inflict; the journal losses come with the built-in journal. */
  readonly fenceLossModes?: readonly ('drop' | 'rename')[];
}

export interface PluginRouteDeclaration {
  /** The route id (`<source>-to-<engine>`): lower case, digits, . _ -; never a built-in route's id. */
  readonly id: string;
  /**
   * The built-in source part the cells read from: the embedded engine's (the built-in engine whose
   * journal needs no server), a seeded file in the cell folder; any other name is refused.
   */
  readonly source: string;
}

/** The table a cell loads, as the harness describes it to the target part. */
export interface CellTable {
  readonly name: string;
  /**
   * Column names and their kind: `integer` values arrive as numbers, or as exact decimal text beyond
   * 2^53 (the cells carry 64-bit integers up to 2^63-1: a target must keep every digit), `text` as strings
   * (the rich texts, and in `at` instants with their zone as ISO-8601 text: keep every one as given).
   */
  readonly columns: readonly { readonly name: string; readonly type: 'integer' | 'text' }[];
  readonly naturalKey: readonly string[];
  readonly partition: { readonly column: string; readonly value: string };
}

export interface TargetPart {
  /**
   * Builds a fresh target in the (empty) cell folder. No worker has started yet. With
   * `{ dedicated: true }` (only when `serverKills` is declared): the target on a server of its own,
   * started for this cell, which the returned target's `control` stops and starts again.
   */
  prepare(cellDir: string, table: CellTable, options?: PrepareOptions): Promise<PreparedTarget>;
  /**
   * Optional: the names of the files in the cell folder that hold the target's whole durable state
   * (its database and any WAL beside it; plain names, no folders). Given, the harness snapshots a
   * recorded first-attempt kill (these files with the source, journal and state folder) and a
   * depth-2 crash or loss cell restores it instead of killing a first attempt again. Absent: every
   * such cell runs its first attempt. A file left out here would be lost on restore: name them all.
   * Given, the harness also seals these files for an intent-conflict cell's conflicting attempt
   * (moved away, an empty folder in place of each name) and requires them untouched afterwards;
   * absent, that cell is UNVERIFIED. So the fence must live in these files too.
   */
  readonly stateFiles?: readonly string[];
  /**
   * Optional (with `stateFiles`): a text dump of the target's logical durable state in a cell
   * folder (a throw-away copy: it may be opened for writing) — every table, the fence's too, rows
   * in a stable order, without values the database fills per transaction (audit markers). The
   * harness masks holder names and millisecond instants. Two recorded kills whose source, journal,
   * state folder and dump are equal are recovered once; a dump that leaves out state merges kills
   * that differ, so leave it out rather than dump less. Absent: every kill is its own cell.
   */
  dumpState?(cellDir: string, table: CellTable): Promise<string>;
  /**
   * Optional: `true` when every target `prepare` returns declares its `server`, and your connector
   * reaches that server only at the `host:port` its workload URL names. The route then needs a
   * Toxiproxy (`--provider local`: it runs on this host, so it reaches the server as `read()` does):
   * each cell gets a proxy in front of the server and its workloads name the proxy's `host:port`
   * instead (your harness's own `read()` and fence reads stay direct), so the network cells
   * (`network.yaml`: reset, black hole, cut, latency, proxy down at each target phase) and the
   * lost acknowledgement (`lost-ack.yaml`: the COMMIT applied, its reply never delivered) run on
   * your route. Your connector must bound its calls (a connect and a per-statement timeout of a
   * few seconds): a black-holed socket must end a worker's call, not hang it. Absent: those cells
   * are UNVERIFIED (no proxy on the target connection), and the suites leave them out.
   */
  readonly network?: boolean;
  /**
   * Optional: `true` when `prepare(cellDir, table, { dedicated: true })` puts the target on a
   * server of its own (started for that cell alone, on a data folder and a port of its own) and
   * the target it returns declares `server` and `control`. The server-kill cells (`server-kill.yaml`)
   * then run on your route: the harness re-prepares the cell's target that way, parks a worker just
   * before the target's COMMIT (and once it was sent), `control.kill(signal)`s the server, releases
   * the worker into the dead server, `control.start()`s it again, and the next run must finish with
   * one mutation. The harness believes neither call: after `kill` the declared `host:port` must
   * refuse connections, after `start` accept them, or the cell is not PASS. Absent: those cells
   * are UNVERIFIED (no server of its own to kill), and the suites leave them out.
   */
  readonly serverKills?: boolean;
}

/** How the harness asks for a cell's target (`TargetPart.prepare`). */
export interface PrepareOptions {
  /** On a server of its own, which `PreparedTarget.control` kills and starts (`serverKills`). */
  readonly dedicated?: boolean;
}

/** A dedicated target's server, as server-kill cells drive it (`PreparedTarget.control`). */
export interface TargetServerControl {
  /** Stops the server: SIGKILL (a crash) or SIGTERM (a clean shutdown); resolves once it is down. */
  kill(signal: 'SIGKILL' | 'SIGTERM'): Promise<void>;
  /** Starts it again on the same data folder and the same `host:port`; resolves once it answers. */
  start(): Promise<void>;
}

/** One cell's target, as the harness sees it: never through the connector under test. */
export interface PreparedTarget extends AsyncDisposable {
  /**
   * The workload's `target` map (the harness adds `connector`). A file in it must be named by an
   * absolute path: workers do not always run beside the cell's workload file (an Airflow try runs
   * a copy of it from its own folder, where a relative path would open a fresh, empty target).
   */
  readonly endpoint: {
    readonly url: string;
    readonly table: string;
    /** The variable holding the target's password (the workload's `password_env`); `env` must set it. */
    readonly password_env?: string;
  };
  /**
   * Secrets the cell's processes need, by variable name (e.g. the one `endpoint.password_env`
   * names): given to every process the harness starts for the cell — workers, settle and recovery
   * runs, the shadow report, Airflow tries — and never written to the workload, the evidence or
   * a report.
   */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * Optional, for a target behind a network server: the host and port the connector reaches it
   * at, exactly as `endpoint.url` names them (`host:port`, IPv6 in brackets, once in the URL).
   * Given, the harness seals the target for an intent-conflict cell's conflicting attempt: that
   * `host:port` in the sealed workload's URL is re-pointed at a listener the harness owns, which
   * counts every connection and byte and forwards nothing (the server stays up, unreached), and
   * afterwards the listener must have seen nothing and `read()` must return the same rows and
   * audited inserts. The seal is believed only once a probe that reads the fence through your
   * connector under it (`recovery target-commit inspect`) was seen by the listener and could not
   * read the fence as committed: a connector that reaches the server some other way (a host or
   * port of its own, an environment variable) leaves the cell UNVERIFIED, never PASS. Absent (and
   * no `stateFiles`): the intent-conflict cell is UNVERIFIED.
   */
  readonly server?: TargetServerAddress;
  /** Safe identity, e.g. `<engine>:events`. */
  readonly identity: string;
  /**
   * Creates the target table without any unique key and installs the audit: the target's own
   * record of every committed insert, written by the target in the insert's transaction (a
   * trigger, a column default the database fills per transaction), never by the connector.
   */
  installAudit(): Promise<void>;
  /** Reads the target with the harness's own connection. */
  read(): Promise<TargetRows>;
  /** Fence losses (drop, rename) and the harness's own read of the fence; absent: those cells are UNVERIFIED. */
  readonly fence?: TargetFenceOperations;
  /** A dedicated target's server (`prepare(…, { dedicated: true })`, `TargetPart.serverKills`). */
  readonly control?: TargetServerControl;
}

/** Where a server-backed target listens, as its workload URL names it (`PreparedTarget.server`). */
export interface TargetServerAddress {
  /** A host name or address (IPv6 without brackets), as in the URL. */
  readonly host: string;
  readonly port: number;
}

export interface TargetRows {
  /** Every row of the target table by column name: integers as bigint (exact), text as strings. */
  readonly rows: readonly Readonly<Record<string, CellScalar>>[];
  /** One record per audited insert in commit order: its natural key values and its transaction marker. */
  readonly inserts: readonly {
    readonly key: Readonly<Record<string, CellScalar>>;
    readonly marker: string | null;
  }[];
  /**
   * `transaction`: a marker names the transaction of each insert (one mutation per marker);
   * `serialized-runs`: no marker, writers are serialised, a new mutation starts where a key repeats.
   */
  readonly markerKind: 'transaction' | 'serialized-runs';
}

export interface TargetFenceOperations {
  drop?(): Promise<void>;
  rename?(): Promise<void>;
  /** The harness's own read of every place the fence was or may be (never through the connector). */
  read(operationId: string): Promise<FenceReading>;
}

export type { AuditedInsert };
