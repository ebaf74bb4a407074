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
export type Row = Readonly<Record<string, CellValue>>;

export type LoadStrategy = 'append' | 'replace-partition';

/** What a source read returns; rows never leave the process except into the target. */
export interface SourceBatch {
  readonly columns: readonly string[];
  readonly rows: readonly Row[];
}

export interface SourceReadRequest {
  /** Partition column and value; the source returns exactly that partition's rows. */
  readonly partitionColumn: string;
  readonly partitionValue: string;
}

export interface SourceConnector extends AsyncDisposable {
  /** Safe identity (kind and table), never a connection string. */
  readonly identity: string;
  read(request: SourceReadRequest): Promise<SourceBatch>;
  close(): Promise<void>;
}

/** The fence identity every target call carries. */
export interface FenceRef {
  readonly operationId: string;
  /** The caller's lease epoch; the fence refuses a smaller one than it holds. */
  readonly epoch: number;
}

export interface FenceEvidence {
  readonly epoch: number;
  readonly status: FenceStatus;
}

export type FenceStatus = 'committed' | 'not-committed' | 'unknown';

export interface FenceAnswer {
  readonly status: FenceStatus;
  /** The epoch the fence holds now, when it holds one. */
  readonly epoch: number | null;
  /** The epoch under which the mutation committed, when committed. */
  readonly committedEpoch: number | null;
  readonly rowsWritten: number | null;
}

export interface MutationRequest {
  readonly fence: FenceRef;
  readonly strategy: LoadStrategy;
  readonly partitionColumn: string;
  readonly partitionValue: string;
  readonly batch: SourceBatch;
}

export interface MutationReceipt {
  readonly rowsWritten: number;
  readonly epoch: number;
}

export interface TargetConnector extends AsyncDisposable {
  readonly identity: string;
  readonly capability: FenceCapabilityKind;

  /**
   * Installs the fence for the operation, or raises its epoch to `fence.epoch`. Durable before it
   * resolves. Rejects with DPONE_TARGET_COMMIT_FENCED when the fence already holds a larger epoch,
   * and with DPONE_TARGET_COMMIT_FENCE_UNAVAILABLE when the target cannot be reached. Never
   * changes a committed fence's committed status.
   */
  prepareFence(fence: FenceRef): Promise<FenceEvidence>;

  /**
   * Writes the batch and proves it in the fence atomically, only while the fence holds exactly
   * `fence.epoch`. Rejects with DPONE_TARGET_COMMIT_FENCED (nothing written) when the epoch is
   * stale. Any other rejection leaves the outcome unknown: the caller must query the fence.
   */
  mutate(request: MutationRequest): Promise<MutationReceipt>;

  /**
   * Reads the fence from the target. `committed` only with positive proof; `not-committed` only
   * when the target proves no mutation landed; otherwise `unknown`. Rejects with
   * DPONE_TARGET_COMMIT_FENCE_UNAVAILABLE when the target cannot be reached.
   */
  queryFence(operationId: string): Promise<FenceAnswer>;

  close(): Promise<void>;
}
