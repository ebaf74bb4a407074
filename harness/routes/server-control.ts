/**
 * The servers a route's parts own, as server, stall and lost-commit faults drive them: apart from
 * parts.ts so that route.ts and parts.ts need not import each other.
 */

/** A server a cell owns, for server faults: stopped with a signal, then started on the same data. */
export interface ServerControl {
  /** What it is, for evidence lines (its service's label). */
  readonly label: string;
  /** Stops it: SIGKILL (a crash, backends too) or SIGTERM (a clean shutdown). */
  kill(signal: ServerSignal): Promise<void>;
  /** Starts it again on the same data and port; resolves once it answers. */
  start(): Promise<void>;
  /**
   * Optional (stall faults): SIGSTOPs the server processes serving the workers' target sessions,
   * once one of them is running a bulk load when `loading` (a server's streamed load), within
   * `withinMs`; resolves with a handle that SIGCONTs them, or null when none was found in time.
   */
  stallBackends?(options: {
    readonly loading: boolean;
    readonly withinMs: number;
  }): Promise<StalledBackends | null>;
  /** Optional (lost-commit faults): a standby to fail over to. */
  prepareFailover?(): Promise<Failover>;
  /**
   * Present only when the server keeps its data directory on a power-loss filesystem (isolated
   * with `powerLoss`): the cut of that filesystem, as power-loss cells drive it.
   */
  readonly power?: PowerSupply;
  /**
   * Present only when the server keeps its data directory on a size-limited filesystem (isolated
   * with `fullDisk`): fills it and frees it again, as full-disk cells drive it.
   */
  readonly disk?: LimitedDisk;
}

/** How a fault asks for a cell's own servers (CellFixture.isolateServers). */
export interface IsolateOptions {
  /**
   * Power-loss cells: the servers keep their data directory on a power-loss filesystem of the cell
   * (one server for the target and the journal where they share an engine), and offer its cut as
   * `power`. `neverSyncs`: the unsafe variant's server, started so that it never syncs (its own
   * setting that turns syncing off).
   */
  readonly powerLoss?: { readonly neverSyncs: boolean };
  /**
   * Full-disk cells: the servers keep their data directory on a size-limited filesystem of the cell
   * (one server for the target and the journal where they share an engine), and offer it as `disk`.
   */
  readonly fullDisk?: boolean;
}

/** A server's storage on a size-limited filesystem (harness/env/tmpfs-mount.ts), as a full-disk cell drives it. */
export interface LimitedDisk {
  /** Where the data directory is: on the filesystem's mount. */
  readonly dataDir: string;
  readonly mountPoint: string;
  /** Fills the filesystem to its last block (a ballast file); the server keeps running. */
  fill(): Promise<void>;
  /** Removes the ballast: the space is back. */
  free(): Promise<void>;
}

/** A server's storage that loses what was not synced (harness/env/lossy-fs.ts), as a power-loss cell drives it. */
export interface PowerSupply {
  /** Where the data directory is: on the power-loss filesystem's mount. */
  readonly dataDir: string;
  readonly mountPoint: string;
  /** Drops everything not synced; kill the server first (a cut takes it down too). */
  cut(): Promise<void>;
  /** Makes everything durable (the cell's prepared state, before the attempts). */
  syncAll(): Promise<void>;
  /** The filesystem's counters: writes and syncs it served, what a cut now would drop. */
  stats(): Promise<{
    readonly writes: number;
    readonly fsyncs: number;
    readonly unsynced: number;
    readonly dirsahead: number;
  }>;
}

/**
 * A failover a lost-commit fault drives: `prepare` starts an asynchronous streaming standby;
 * `stopReplication` SIGSTOPs its WAL receiver (nothing committed from then on reaches it);
 * `failover` SIGKILLs the primary, kills the stopped receiver (the WAL it had not read dies with
 * it), promotes the standby and gives it the primary's address.
 */
export interface Failover extends AsyncDisposable {
  stopReplication(): Promise<void>;
  failover(): Promise<void>;
}

/** Server processes a stall fault stopped; `resume` lets them run on (idempotent). */
export interface StalledBackends {
  readonly pids: readonly number[];
  resume(): void;
}

export type ServerSignal = 'SIGKILL' | 'SIGTERM';

/** Where a server fault kills a role's server (points absent from a route's trace are not planned). */
export interface ServerKill {
  readonly phase: string;
  readonly point: string;
  readonly signal: ServerSignal;
  /** The journal died before COMMITTING: the attempt must end JOURNAL_UNAVAILABLE, the target untouched. */
  readonly noMutationExpected?: boolean;
}

/**
 * Where server-kill cells stop a target server that commits its marker in the data's transaction
 * (those points its clean trace passes): just before its COMMIT, and once the COMMIT was sent,
 * its reply not yet read.
 */
export const TARGET_COMMIT_KILLS: readonly ServerKill[] = [
  { phase: 'commit', point: 'target.commit:before', signal: 'SIGKILL' },
  { phase: 'commit-sent', point: 'target.commit:sent', signal: 'SIGKILL' },
];
