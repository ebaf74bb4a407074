import type { FenceCapabilityKind } from '../../src/ports/connector.ts';
import type { AcceptanceItem } from '../gate/acceptance-item.ts';
import type { TargetCommitJournalPort } from '../../src/ports/journal.ts';
import type { CellScalar } from '../checkers/target-snapshot.ts';
import type { CellTable } from './target-part.ts';
import type { SourceRows } from '../inspectors/source-rows.ts';
import type { TargetInspector } from '../inspectors/target-inspector.ts';
import type { Dataset, DatasetRow } from '../data/dataset.ts';
import type { StartedEnvironment } from '../env/environment.ts';
import type { EmbeddedEntry, ServiceEntry } from '../env/service-entry.ts';
import type { ServiceName } from '../env/services.ts';
import type { ProxyEndpoint } from '../env/toxiproxy-service.ts';
import type {
  CellWorkloadOptions,
  FenceLossMode,
  FenceOperations,
  FileImage,
  JournalFileOperations,
  JournalLossMode,
  JournalOperations,
} from './route.ts';
import type { IsolateOptions, ServerControl, ServerKill } from './server-control.ts';

/**
 * A route is composed of three PARTS, one per role, each written once per connector (in its own
 * folder, connectors/<engine>/harness/): a source part (creates and seeds a fresh source for a cell), a target
 * part (a fresh target, its independent inspector, its fence and loss operations, its unsafe
 * variants) and a journal part. compose-route.ts puts any source with any target and picks the
 * journal; route-registry.ts lists the connectors' entries. A new connector joins every
 * combination by adding its parts, its entry and one registration line.
 */

/** What a part gets for one cell. */
export interface PartCell {
  /** The cell's folder (files of embedded engines live here; the workload is written here). */
  readonly dir: string;
  /** A short name unique to this cell (`c_<16 hex>`), for server-side schemas and databases. */
  readonly tag: string;
  readonly options: CellWorkloadOptions;
  readonly dataset: Dataset;
  readonly environment: StartedEnvironment;
  /**
   * True when a server fault will kill this role's server: the part puts the cell on a server of
   * its own (the service's `dedicated`) and returns its `server` control.
   */
  readonly dedicated: boolean;
  /** With `dedicated`: that server on a power-loss filesystem (IsolateOptions.powerLoss). */
  readonly powerLoss?: IsolateOptions['powerLoss'];
  /** With `dedicated`: that server on a size-limited filesystem (IsolateOptions.fullDisk). */
  readonly fullDisk?: boolean;
}

/** The `source:` or `target:` block of the generated workload. */
export interface WorkloadEndpoint {
  readonly url: string;
  readonly table: string;
  readonly password_env?: string;
  readonly fence_schema?: string;
}

/**
 * A part's storage sealed for one attempt (intent-conflict cells), in a way the harness itself
 * watches: what decides "no I/O" is what the storage shows afterwards, never the attempt's trace.
 */
export interface PartSeal {
  /** The URL the sealed attempt's workload names for this part (it reaches nothing real). */
  readonly url: string;
  /** What was made unreachable, for the evidence. */
  readonly sealed: string;
  /** Restores the storage and says what was touched meanwhile (empty: nothing). */
  release(): Promise<readonly string[]>;
}

/** What every prepared part may hold: extra worker environment and a digest of its durable state. */
interface PreparedPart extends AsyncDisposable {
  /** Extra environment for workers (passwords by the variable the workload names). */
  readonly env: Readonly<Record<string, string>>;
  /**
   * A digest of this part's logical durable state, read by the harness itself, with holder names
   * and instants masked: equal after two kills means recovery from them is one test.
   */
  fingerprint?(): Promise<string>;
}

export interface PreparedSource extends PreparedPart {
  readonly workload: WorkloadEndpoint;
  /** The harness's own reader of the loaded partition (parity), never the connector under test. */
  readonly rows: SourceRows;
  /** Adds rows to the source (late rows arriving while a zombie is parked). */
  addRows(rows: readonly DatasetRow[]): Promise<void>;
  /** Seals the source for one attempt (no worker may be running); absent: intent-conflict cells are UNVERIFIED. */
  seal?(): Promise<PartSeal>;
}

export interface SourcePart extends FileState {
  /** The engine, as in route ids (the harness registry's name of it). */
  readonly engine: string;
  /** The connector version the runtime ships for this source (src/cli/certifications.ts). */
  readonly connectorVersion: string;
  readonly services: readonly ServiceName[];
  prepare(cell: PartCell): Promise<PreparedSource>;
}

export interface PreparedTarget extends PreparedPart {
  readonly workload: WorkloadEndpoint;
  /** CHECKER's inspector, with its audit installed: reads target and source itself. */
  readonly inspector: TargetInspector;
  readonly fenceOps?: FenceOperations;
  /**
   * Target blocks whose fence lookup resolves elsewhere (fence-loss `move` modes), for the same
   * operation and target table; absent when the engine has no such view.
   */
  movedOutOfView?(view: 'schema' | 'temp'): Promise<WorkloadEndpoint>;
  /** The proxy in front of the target (network faults poison it); absent for an embedded target. */
  readonly proxy?: ProxyEndpoint;
  /** The cell's own server, when prepared `dedicated`. */
  readonly server?: ServerControl;
  /** Seals the target and its fence for one attempt (no worker may be running); absent: intent-conflict cells are UNVERIFIED. */
  seal?(): Promise<PartSeal>;
}

export interface TargetPart extends FileState {
  readonly engine: string;
  readonly capability: FenceCapabilityKind;
  /**
   * The connector can also write this target without a fence (`target.fence: none`, capability
   * none: plain writes), for fenceless scenarios; the route is then certified against the
   * variants unsafe without a fence too.
   */
  readonly plainWrites?: boolean;
  readonly connectorVersion: string;
  readonly services: readonly ServiceName[];
  /** Deliberately unsafe variants of this target (DPONE_UNSAFE_VARIANT) the sensitivity pass must catch. */
  readonly unsafeVariants: readonly string[];
  /** Fence-loss modes its fence operations support. */
  readonly fenceLossModes: readonly FenceLossMode[];
  /** Where server faults kill this target's server; absent: it has none to kill. */
  readonly serverKills?: readonly ServerKill[];
  /** With its state in one file (`files`): that file's tables as one comparable line (power-loss cells). */
  readonly fileImage?: FileImage;
  /** Network phases of its own protocol beyond the shared ones (phase → fault point). */
  readonly networkPhases?: Readonly<Record<string, string>>;
  prepare(cell: PartCell, source: PreparedSource): Promise<PreparedTarget>;
}

export interface PreparedJournal extends PreparedPart {
  /** Workers' `--journal` (through its proxy when it has one). */
  readonly url: string;
  /** Journal loss operations; absent members make those loss cells UNVERIFIED. */
  readonly ops: JournalOperations;
  /** Opens the journal for the harness (never creating one a loss fault removed); the caller closes it. */
  open(): Promise<TargetCommitJournalPort>;
  /** The journal as one local file (storage faults); absent: those cells are UNVERIFIED. */
  readonly file?: JournalFileOperations;
  readonly proxy?: ProxyEndpoint;
  readonly server?: ServerControl;
}

export interface JournalPart extends FileState {
  /** The journal adapter, as recorded in the evidence (its engine's name in the harness registry). */
  readonly kind: string;
  readonly services: readonly ServiceName[];
  readonly lossModes: readonly JournalLossMode[];
  readonly serverKills?: readonly ServerKill[];
  prepare(cell: PartCell): Promise<PreparedJournal>;
}

/**
 * Every part may say which files of the cell folder hold its durable state, when it lives there
 * (embedded engines): a route whose three parts all do can copy and fingerprint a cell's state,
 * so depth-2 cells start from a recorded kill.
 */
export interface FileState {
  readonly files?: readonly string[];
  /** With `files`: the logical content of one of them (every table, rows sorted), for the fingerprint. */
  dumpFile?(path: string): string;
}

/** One connector's harness parts: whichever roles it can play. */
export interface ConnectorParts {
  readonly engine: string;
  readonly source?: SourcePart;
  readonly target?: TargetPart;
  readonly journal?: JournalPart;
  /** The embedded engine's (embeddedJournal): the source file and cell journal plug-in routes borrow. */
  readonly pluginHost?: EmbeddedHost;
}

/** A role a connector's parts can play in a route. */
export type PartRole = 'source' | 'target' | 'journal';

/**
 * One engine as the harness knows it: its one line of the harness registry (routes/route-registry.ts
 * CONNECTOR_PARTS), exported from `connectors/<engine>/harness/engine.ts`. The route registry reads
 * its roles and parts (loaded only when a route uses them); the environment providers get its
 * server service (or, for the engine inside Node, its version) through their start options, and
 * `dpone doctor` probes the components of both (routes/engine-services.ts).
 */
export interface ConnectorPartsEntry {
  readonly roles: readonly PartRole[];
  readonly load: () => Promise<ConnectorParts>;
  /**
   * Its journal is a file in the cell's folder and needs no server: the journal of a route none of
   * whose servers keeps one (route-registry.ts `journalEngine`). One engine declares it.
   */
  readonly embeddedJournal?: true;
  /**
   * It runs inside Node (no server to start): the embedded and local providers record its version,
   * and doctor probes it. One engine declares it.
   */
  readonly embedded?: EmbeddedEntry;
  /**
   * Its server, as the environment providers start or find it (`connectors/<engine>/harness/env/
   * service.ts`); its parts name it in their `services` by the engine's name. Absent: no server.
   */
  readonly service?: ServiceEntry<unknown>;
  /**
   * The gate lines a route whose target is this engine adds (its `gate/` items, the ones its
   * runtime registration names: ConnectorPlugin.acceptance): `route` lines printed after the
   * shared fault lines, `storage` lines (power loss, full disk, …) last (gate/acceptance-items.ts).
   */
  readonly acceptance?: {
    readonly route?: readonly AcceptanceItem[];
    readonly storage?: readonly AcceptanceItem[];
  };
}

/**
 * What a plug-in route borrows from the embedded engine (the one engine whose journal needs no
 * server, ConnectorPartsEntry.embeddedJournal): a seeded source file and the cell journal, both in
 * the cell folder. Plug-in routes are `<embedded>-to-<plug-in>` (plugin-route.ts); the embedded
 * engine's parts supply this (ConnectorParts.pluginHost), so the host itself names no engine.
 */
export interface EmbeddedHost {
  /** The embedded engine, as in route ids: the source every plug-in route declares. */
  readonly engine: string;
  /** Its name as messages show it. */
  readonly label: string;
  readonly source: EmbeddedSource;
  readonly journal: EmbeddedJournal;
  /** The database files of an embedded cell (source, target, journal), as its fingerprint dumps them. */
  readonly files: readonly string[];
  /** Whether a name in the cell folder is one of those files or a side file the engine keeps beside one. */
  isDurable(name: string): boolean;
  /** The logical content of one such file: every table, rows sorted (the caller masks it). */
  dumpFile(path: string): string;
}

/** The seeded source file of a plug-in cell. */
export interface EmbeddedSource {
  /** The workload's source URL, relative to the cell folder. */
  readonly url: string;
  /** Creates the source table (the columns' kinds as given) and inserts the rows in one transaction. */
  write(cellDir: string, table: CellTable, rows: Iterable<readonly CellScalar[]>): void;
  /** The harness's own reader of the source's loaded partition. */
  rows(cellDir: string, table: CellTable): SourceRows;
  /** Seals the source file for one attempt (intent-conflict cells). */
  seal(cellDir: string): Promise<PartSeal>;
}

/** The journal file of a plug-in cell. */
export interface EmbeddedJournal {
  /** The journal adapter, as recorded in the evidence. */
  readonly kind: string;
  readonly lossModes: readonly JournalLossMode[];
  /** Workers' `--journal` for a cell folder. */
  url(cellDir: string): string;
  /** Opens the journal for the harness, never creating one a loss fault removed; the caller closes it. */
  open(cellDir: string, url: string): Promise<TargetCommitJournalPort>;
  /** Its loss operations. */
  ops(cellDir: string): JournalOperations;
}
