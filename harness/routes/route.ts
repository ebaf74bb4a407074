import type { ConnectorCode } from '../../src/contracts/certification.ts';
import type { TargetCommitJournalPort } from '../../src/ports/journal.ts';
import type { TargetInspector } from '../inspectors/target-inspector.ts';
import type { StartedEnvironment } from '../env/environment.ts';
import type { ServiceName } from '../env/services.ts';
import type { FenceReading } from '../evidence/evidence-types.ts';
import type { StorageSeal } from './storage-seal.ts';
import type { IsolateOptions, ServerControl, ServerKill } from './server-control.ts';

/** What the scenario asks of the generated workload. */
export interface CellWorkloadOptions {
  /** Source rows in the loaded partition (0: an empty partition; the workload then says allow_empty). */
  readonly rows: number;
  readonly strategy: 'append' | 'replace-partition';
  /** `execution.lease_ttl_ms` of the generated workload (short for pause cells). */
  readonly leaseTtlMs: number;
  /** Seeds the generated row values, so a replayed cell loads the same rows. */
  readonly seed: number;
  /** `none`: the workload writes its target without a fence (capability none). */
  readonly fence?: 'none';
  /** The pooler lane: the workers' server connections go through a pooler (its service's) in this mode. */
  readonly pooler?: 'session' | 'transaction';
}

/** How a journal is lost (harness/faults/journal-loss-fault.ts). */
export const JOURNAL_LOSS_MODES = ['wipe', 'delete', 'rollback', 'fork', 'wal-loss'] as const;
export type JournalLossMode = (typeof JOURNAL_LOSS_MODES)[number];
/** How a target fence is lost (harness/faults/fence-loss-fault.ts). */
export const FENCE_LOSS_MODES = ['drop', 'rename', 'move', 'move-temp'] as const;
export type FenceLossMode = (typeof FENCE_LOSS_MODES)[number];

/** A copy of a cell's journal taken by `JournalOperations.backup`; opaque to the caller. */
export interface JournalBackup {
  readonly id: string;
}

/**
 * What a route can do to a cell's journal, as the loss faults need it; each member is optional and
 * a cell whose route lacks the one its mode needs is UNVERIFIED, never PASS. None of them may run
 * while a worker is inside a journal write (the faults call them at a parked or killed worker).
 */
export interface JournalOperations {
  /** Empties the journal in place (a file journal: truncated to 0 bytes, its write-ahead log deleted). */
  wipe?(): Promise<void>;
  /** Deletes the journal and the cell's state folder (a pod's local state lost with it). */
  delete?(): Promise<void>;
  /** A consistent copy of the journal as it is now (a worker may be parked with it open). */
  backup?(): Promise<JournalBackup>;
  /** Replaces the journal with an earlier backup (a restore from an older backup). */
  restore?(backup: JournalBackup): Promise<void>;
  /** The URL of a second, empty journal for the same target (another deployment). */
  forkUrl?(): Promise<string>;
  /** A file journal with a write-ahead log: deletes the log and its index; resolves to the log bytes deleted. */
  dropWal?(): Promise<number>;
  /**
   * Server journals: changes one field of the journal's rows behind the journal's back (as the
   * server's superuser, the way an operator's UPDATE or a bad restore would), chosen by `seed`;
   * resolves to what was changed (names and states only, no values), or null when there is no row.
   */
  tamper?(seed: number): Promise<string | null>;
  /** A digest of the journal's durable bytes (or rows): equal before and after a read-only command. */
  digest?(): Promise<string>;
}

/** What a reader of a journal file gets: the operation's entry, no entry, or the runtime's error code. */
export type JournalFileReading =
  | { readonly kind: 'entry'; readonly entry: string; readonly state: string; readonly leaseHeld: boolean }
  | { readonly kind: 'absent' }
  | { readonly kind: 'error'; readonly code: string };

/**
 * A journal kept in one local file, as the storage faults need it: where it is, the files beside
 * it, and readers that go through the runtime's own journal code (checksums and checks included).
 */
/**
 * A state file's durable content as one comparable line (states, counts, digests: never a value):
 * `before-cut` reads without recovering or syncing anything, `after-cut` opens it as the next run
 * would (power-loss cells compare the two). Null: no file, or nothing in it yet.
 */
export type FileImage = (path: string, when: 'before-cut' | 'after-cut') => string | null;

export interface JournalFileOperations {
  /** The journal's file. */
  readonly path: string;
  /** The journal's entries and history at `path` as one comparable line (power-loss cells). */
  readonly image: FileImage;
  /** Suffixes of the files the engine keeps beside it (write-ahead log, shared memory). */
  readonly sideSuffixes: readonly string[];
  /** Creates an empty journal (schema only) at `path`. */
  create(path: string): Promise<void>;
  /**
   * Opens the journal file at `path` read-only through the runtime's adapter (the caller closes
   * it): for a journal a fault keeps somewhere else than `path`, e.g. the lease clock's reading.
   */
  open(path: string): Promise<TargetCommitJournalPort>;
  /** Folds what the engine keeps beside the file into it; the only operation's id, or null. */
  settle(): Promise<string | null>;
  /** What the runtime's reader gets for `operationId` from the journal file at `path`. */
  read(path: string, operationId: string): Promise<JournalFileReading>;
  /** Whether every entry and its history read through the runtime's reader (nothing half-written). */
  readsWhole(path: string): Promise<boolean>;
  /** The byte ranges of `path` where the entries' rows are stored. */
  entryRowRanges(path: string): readonly { readonly from: number; readonly to: number }[];
}

/** What a route can do to a cell's target fence, as the fence-loss fault needs it. */
export interface FenceOperations {
  /** Drops the fence table. */
  drop?(): Promise<void>;
  /** Renames the fence table (its rows kept under another name, out of the runtime's reach). */
  rename?(): Promise<void>;
  /**
   * Writes a workload for the same operation and target table whose fence lookup resolves
   * elsewhere (a server's other schema on the lookup path, or its session-temporary one), and
   * returns its path.
   */
  moveOutOfView?(view: 'schema' | 'temp'): Promise<string>;
  /** The harness's OWN read of every place the fence was or may be (never through the connector). */
  read(operationId: string): Promise<FenceReading>;
}

/**
 * One cell's fresh world: its own source, target (with the harness audit installed) and journal.
 * Disposing it closes whatever it holds open (files stay for the evidence directory).
 */
export interface CellFixture extends AsyncDisposable, CellExtras {
  /** Generated workload YAML for this cell. */
  readonly workloadFile: string;
  /** Same identity, different intent digest (for intent-conflict). */
  readonly conflictingWorkloadFile: string;
  /**
   * Another operation (another release id, so another operation id) loading the same partition of
   * the same target with the same rows: a new release rolling out while the old run still retries.
   * Absent: the route's cells cannot run two operations on one partition.
   */
  readonly secondOperationWorkloadFile?: string;
  /** Passed to workers with --journal. */
  readonly journalUrl: string;
  /** Extra environment for workers (password env vars, proxies...). */
  readonly env: Readonly<Record<string, string>>;
  /** CHECKER's inspector: reads the target and source itself, never through the connector. */
  readonly inspector: TargetInspector;
  /**
   * Opens the cell's journal for reading history after the workers ended; the caller closes it.
   * Must not create a journal that a loss fault removed or emptied (it reads as empty instead).
   */
  openJournal(): Promise<TargetCommitJournalPort>;
  /** Journal loss operations (journal-loss cells); absent: those cells are UNVERIFIED. */
  readonly journalOps?: JournalOperations;
  /** Fence loss operations and the harness's own fence reader (loss cells). */
  readonly fenceOps?: FenceOperations;
  /**
   * Makes the source, target and fence storage unreachable for the next attempt, which runs
   * `workloadFile` (or the workload the seal returns), in a way the harness watches; the seal's
   * `release` restores it and says what was touched. Absent: intent-conflict cells are UNVERIFIED.
   * No worker may be running when it is called.
   */
  sealStorage?(workloadFile: string): Promise<StorageSeal>;
  /**
   * With a seal made of declared names (a plug-in's `stateFiles`): watches the cell folder while an
   * honest attempt runs; `release` returns the declared names that attempt never opened, created
   * or wrote. Such a name is not the target's state, so a seal built on it is not believed.
   */
  watchStateUse?(): Promise<{ release(): Promise<readonly string[]> }>;
  /**
   * Optional: a digest of the cell's logical durable state read where it lives (servers
   * included), for routes that cannot copy it: kills leaving equal digests share depth-2 cells.
   */
  fingerprint?(): Promise<string>;
}

/** The connections a route's workers make through a proxy the harness can poison (network faults). */
export type ProxiedConnection = 'target' | 'journal';

/** What a route's cells can do beyond the protocol's own faults; faults plan from it. */
export interface RouteCapabilities {
  readonly proxies: readonly ProxiedConnection[];
  /** Where server faults kill the target's and the journal's server (empty: none to kill). */
  readonly serverKills: { readonly target: readonly ServerKill[]; readonly journal: readonly ServerKill[] };
  /** Network phases of the target's own protocol beyond the shared ones (phase → fault point). */
  readonly networkPhases: Readonly<Record<string, string>>;
  /** Whether the source takes rows during a cell (late rows while a zombie is parked). */
  readonly lateRows: boolean;
  /**
   * Whether the target can also be written without a fence (`target.fence: none`, capability
   * none): fenceless scenarios run only then (a suite leaves them out otherwise).
   */
  readonly plainWrites?: boolean;
  /**
   * Whether the route's target part starts a server of its own for a cell that asks (a plug-in
   * declaring `serverKills`), whatever the provider: server faults need no provider's server then.
   */
  readonly ownServers?: boolean;
}

/** What a network fault needs of a cell: the Toxiproxy API and the proxy of each connection. */
export interface CellNetwork {
  readonly apiUrl: string;
  readonly proxies: Readonly<Partial<Record<ProxiedConnection, string>>>;
}

/** A fixture's extra members, present when its route has the capability. */
export interface CellExtras {
  readonly network?: CellNetwork;
  /** The journal as one local file (storage faults: full-disk, journal-corruption); absent: those cells are UNVERIFIED. */
  readonly journalFile?: JournalFileOperations;
  /** The target's one local file, when it keeps its state in one (storage faults). */
  readonly targetFile?: string;
  /** The tables of such a target file as one comparable line (power-loss cells); absent: those cells are UNVERIFIED. */
  readonly targetImage?: FileImage;
  /**
   * Moves the cell's target and journal onto servers of their own (before any worker ran), which
   * server faults may kill and restart without touching other cells; the workload follows.
   */
  isolateServers?(
    options?: IsolateOptions,
  ): Promise<Readonly<Partial<Record<ProxiedConnection, ServerControl>>>>;
  /** Adds `count` rows to the loaded partition of the source (late rows). */
  addSourceRows?(count: number): Promise<void>;
}

/**
 * A route: a source part, a target part and a journal part composed (compose-route.ts), named
 * `SOURCE-to-TARGET`. Routes are not written one per pair: route-registry.ts derives them from
 * the connectors' parts.
 */
export interface Route {
  readonly id: string;
  /** Provider used when --provider is not given (embedded when the route needs no server). */
  readonly defaultProvider: string;
  /** What the provider must start for this route's parts. */
  readonly services: readonly ServiceName[];
  /** The journal adapter the route's cells use (recorded in the evidence). */
  readonly journal: string;
  /** The connectors' human version (src/cli/certifications.ts routeConnectorVersion), for display. */
  readonly connectorVersion: string;
  /** The code of the route's connectors, by digest of their files (what a certification binds). */
  readonly code: () => readonly ConnectorCode[];
  /** Deliberately unsafe target variants (DPONE_UNSAFE_VARIANT) the sensitivity pass must catch. */
  readonly unsafeVariants: readonly string[];
  readonly capabilities: RouteCapabilities;
  /**
   * Optional: copies a cell's durable state (source, target, journal, state folder) from one cell
   * folder into another prepared cell, while no worker holds it open. Lets a depth-2 crash cell
   * start from the state a recorded first-attempt kill left, instead of killing a first attempt
   * again. Routes whose state lives on a server leave it out; the cell then runs the first attempt.
   * False: `fromDir` holds none of the target's state (a plug-in's declared state files are all
   * absent there: its target lives elsewhere), nothing was copied, and the cell must produce that
   * state itself, as on a route without this.
   */
  copyCellState?(fromDir: string, toDir: string): Promise<boolean>;
  /**
   * Optional: a digest of a cell folder's logical durable state (masking holder names and
   * instants). Equal digests after two first-attempt kills mean recovery from them is one test.
   */
  durableFingerprint?(dir: string): Promise<string>;
  /**
   * Loss modes this route's cells support: what a journal-loss or fence-loss scenario runs when
   * it names no modes. Absent: none (such cells are then UNVERIFIED).
   */
  readonly lossModes?: {
    readonly journal: readonly JournalLossMode[];
    readonly fence: readonly FenceLossMode[];
  };
  /** Builds a fresh cell in `cellDir` (created by the caller, empty). */
  prepareCell(
    cellDir: string,
    options: CellWorkloadOptions,
    environment: StartedEnvironment,
  ): Promise<CellFixture>;
}
