/**
 * Source and target connector ports. A target certifies one fence capability (spec "Connector
 * capability contract"); without one, automatic recovery is forbidden.
 */

/** The spec's capability list; `none` means COMMITTING after process loss becomes COMMIT_UNKNOWN. */
export type FenceCapabilityKind =
  | 'target-native-idempotency-key'
  | 'transactional-commit-marker'
  | 'staging-swap-generation'
  | 'route-certified-fence'
  | 'none';

export type CellValue = string | number | null;
/** One row: its values in the order of the stream's `columns`. */
export type Row = readonly CellValue[];
/** A bounded slice of a partition's rows, in source order. */
export type RowChunk = readonly Row[];

export type LoadStrategy = 'append' | 'replace-partition';

/**
 * A partition as a stream of bounded chunks: memory stays bounded by the chunk size whatever the
 * partition's size. Iterated at most once; rows never leave the process except into the target.
 * Whoever opened it closes it (also when it was never iterated, or iterated only in part); an
 * error while iterating (the source failed mid-read) rejects the iteration, and the target's
 * transaction then rolls back.
 */
export interface RowStream extends AsyncIterable<RowChunk>, AsyncDisposable {
  /** The column names, in the order of every row's values; known before the first chunk. */
  readonly columns: readonly string[];
  /**
   * `typed`: every integer arrives as a bigint and every JS number is a floating-point value, as the
   * source stored it (storage classes INTEGER and REAL: a REAL 20.0 must not land as INTEGER 20).
   * Absent: a JS number may be either, and a target chooses by its value.
   */
  readonly numbers?: 'typed';
  /**
   * Optional: where the rows live, for a target that can copy them inside its own engine (an engine
   * copy: the rows never cross into the process). A target copies only from an origin it recognises
   * and otherwise iterates the stream as usual; a stream whose rows are changed on the way must not
   * carry it. Holds a location (a file path), so it never reaches a message, a log or evidence.
   */
  readonly origin?: RowOrigin;
  /**
   * Optional: the same partition in an engine's own bulk format, for a target of that engine that
   * takes it without decoding a row (e.g. a binary COPY). A target that does not know the
   * format, or whose column types differ, iterates the rows instead; wrappers that change values
   * must not pass it on.
   */
  readonly native?: NativeRows;
  /** Stops reading and releases the cursor or statement; idempotent. */
  close(): Promise<void>;
}

/**
 * The rows of a stream where they are: one partition of one table of one engine. The rows are
 * exactly those the stream yields (same columns, in `RowStream.columns` order; same filter).
 */
export interface RowOrigin {
  /**
   * The engine that holds the rows, named as its folder is (connectors/<engine>/); a target that
   * does not know it streams.
   */
  readonly engine: string;
  /** Where, in that engine's own terms (an embedded engine: the database file's absolute path). */
  readonly location: string;
  readonly table: string;
  readonly partitionColumn: string;
  readonly partitionValue: string;
}

/**
 * A partition's rows as an engine's own bulk bytes (RowStream.native). Opened at most once, and
 * then instead of iterating the stream: the bytes are the whole partition, whatever a wrapper
 * took from the stream to look at its first rows.
 */
export interface NativeRows {
  /** The format, versioned (e.g. `<engine>-binary-copy/1`); a target takes only formats it knows. */
  readonly format: string;
  /** The source's column types in `columns` order as its catalog names them (no row values). */
  columnTypes(): Promise<readonly string[]>;
  /** Starts the copy out of the source; the bytes in order, bounded chunks. */
  open(): Promise<NativeCopy>;
}

export interface NativeCopy extends AsyncIterable<Uint8Array> {
  /** The source's own count of the rows it sent, once the iteration ended; null before. */
  readonly rowCount: number | null;
}

export interface SourceReadRequest {
  /** Partition column and value; the source returns exactly that partition's rows. */
  readonly partitionColumn: string;
  readonly partitionValue: string;
}

export interface SourceConnector extends AsyncDisposable {
  /** Safe identity (kind and table), never a connection string. */
  readonly identity: string;
  /**
   * Opens the partition's rows as a stream (a server-side cursor or a streaming statement, never
   * the whole result in memory). Rejects when the read cannot start (missing table or column, a
   * privilege, a partition value the column's type cannot take); a failure after it started
   * rejects the iteration instead.
   */
  read(request: SourceReadRequest): Promise<RowStream>;
  close(): Promise<void>;
}

/** The fence identity every target call carries. */
export interface FenceRef {
  readonly operationId: string;
  /** The caller's lease epoch; the fence never goes back to a smaller one. */
  readonly epoch: number;
  /** The intent the caller writes; a fence installed for another intent refuses it. */
  readonly intentDigest: string;
  /** The lease holder that owns `epoch`; an equal epoch is re-installed only for the same holder. */
  readonly holder: string;
}

/** How prepareFence may treat a missing fence. */
export interface PrepareFenceMode {
  /**
   * Only the first preparation (journal PREPARING) may create the fence. Everywhere else a fence
   * that is missing was lost or is looked for in the wrong place: it is reported, never created.
   */
  readonly create: boolean;
}

export type FenceStatus = 'committed' | 'not-committed' | 'unknown';

export interface FenceAnswer {
  readonly status: FenceStatus;
  /** The epoch the fence holds now; null exactly when the target holds no fence for the operation. */
  readonly epoch: number | null;
  /** The epoch under which the mutation committed, when committed. */
  readonly committedEpoch: number | null;
  readonly rowsWritten: number | null;
  /** The intent digest the fence was installed for; null when there is no fence or it does not say. */
  readonly intentDigest: string | null;
  /** The lease holder that installed the fence's current epoch; null when unknown. */
  readonly holder: string | null;
}

/**
 * The answer when the target holds no fence for the operation (or no fence at all): `unknown`,
 * no epoch and nothing proven; `holder` is the caller's when it asked to install one.
 */
export function noFenceAnswer(holder: string | null = null): FenceAnswer {
  return {
    status: 'unknown',
    epoch: null,
    committedEpoch: null,
    rowsWritten: null,
    intentDigest: null,
    holder,
  };
}

/** What prepareFence leaves: the fence as queryFence would answer now, and whether it is the caller's. */
export interface FenceEvidence extends FenceAnswer {
  /**
   * True when the fence now holds the caller's epoch for the caller's holder and intent (installed
   * now, raised now, or installed before by the same holder). False when it holds a newer epoch, an
   * equal epoch of another holder, another intent, or nothing (a missing fence under
   * `create: false`); the fence was then left as it was.
   */
  readonly installed: boolean;
}

export interface MutationRequest {
  readonly fence: FenceRef;
  readonly strategy: LoadStrategy;
  readonly partitionColumn: string;
  readonly partitionValue: string;
  /**
   * The partition's rows. The target consumes them inside its one guarded transaction (or into its
   * one staging table) and counts them: the count it writes is the fence's rows_written. The
   * caller closes the stream.
   */
  readonly rows: RowStream;
}

export interface MutationReceipt {
  /**
   * True when this call's own write committed. False when the fence was already committed for
   * this operation and intent: nothing was written, and the caller must prove the commit from
   * the fence (queryFence) instead of claiming it.
   */
  readonly applied: boolean;
  readonly rowsWritten: number;
  readonly epoch: number;
}

export interface TargetConnector extends AsyncDisposable {
  readonly identity: string;
  readonly capability: FenceCapabilityKind;
  /**
   * Where the fence lives, as a safe identity known without any I/O (e.g. `<engine>:dw._dpone_fence`;
   * never a host or credential). The journal records it with the intent; a retry whose fence
   * would live elsewhere is refused (DPONE_TARGET_COMMIT_DIVERGED) before any source or target I/O.
   */
  readonly fenceLocation: string;

  /**
   * Installs the fence (only with `mode.create`), or raises its epoch to `fence.epoch`, never
   * lowering it and never changing a committed fence's status or intent. An equal epoch counts as
   * the caller's only for the same holder. Durable before it resolves; answers what the fence
   * holds afterwards (see FenceEvidence.installed) instead of refusing. Rejects with
   * DPONE_TARGET_COMMIT_FENCE_UNAVAILABLE when the target cannot be reached.
   */
  prepareFence(fence: FenceRef, mode: PrepareFenceMode): Promise<FenceEvidence>;

  /**
   * Writes the rows and proves them in the fence atomically, only while the fence holds exactly
   * `fence.epoch` for `fence.intentDigest` and is not committed yet: at most one commit per
   * operation, whatever any journal says. Refusals, each with nothing written:
   * - already committed (same intent): resolves with `applied: false`;
   * - another intent digest: DPONE_TARGET_COMMIT_INTENT_CONFLICT;
   * - another epoch: DPONE_TARGET_COMMIT_FENCED;
   * - no fence at all: DPONE_TARGET_COMMIT_DIVERGED.
   * Any other rejection leaves the outcome unknown: the caller must query the fence.
   */
  mutate(request: MutationRequest): Promise<MutationReceipt>;

  /**
   * Reads the fence from the target. `committed` only with positive proof; `not-committed` only
   * when the target proves no mutation landed; otherwise `unknown` (also when there is no fence:
   * `epoch` null). Never creates or changes anything. Rejects with
   * DPONE_TARGET_COMMIT_FENCE_UNAVAILABLE when the target cannot be reached.
   */
  queryFence(operationId: string): Promise<FenceAnswer>;

  close(): Promise<void>;
}
