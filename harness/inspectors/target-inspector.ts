import type { TargetSnapshot } from '../evidence/evidence-types.ts';

/**
 * The checker's own view of a route's target. An inspector reads the target and the source
 * ITSELF (its own driver connection, never the connector under test or its fence) and returns
 * digests and counts only, and without parity the first differing natural key with the names of
 * the differing columns (first-difference.ts): no other row values ever leave it.
 *
 * Lifecycle: the route creates the inspector for a fresh cell, calls `installAudit()` before any
 * worker starts, and `snapshot()` after the last worker ended. Both are safe to call again.
 */
export interface TargetInspector extends AsyncDisposable {
  /** Safe identity, e.g. `<engine>:events` — never a path with credentials or a connection string. */
  readonly identity: string;

  /**
   * Installs the harness audit on the target table (creating the table, without any unique key,
   * when it does not exist yet): every committed insert leaves one audit row, written in the same
   * transaction as the insert, so a rolled-back insert leaves none. Idempotent.
   */
  installAudit(): Promise<void>;

  /**
   * Reads target, source and audit and returns the snapshot, including the value-free audit trail
   * `certify verify` recomputes it from. Rejects (a DponeError) when the target cannot be read;
   * the cell checker turns that into UNKNOWN.
   */
  snapshot(options?: SnapshotOptions): Promise<TargetSnapshot>;

  /**
   * The target's rows alone, without the source or the audit: the same `target_digest` and
   * `row_count` a snapshot of the same rows has. Optional; the reads between workers
   * (atomic-visibility) use it when present, a snapshot otherwise. On a 1,000,000-row partition a
   * snapshot digests two million rows; this digests one million once.
   */
  targetDigest?(): Promise<TargetDigest>;

  close(): Promise<void>;
}

export interface SnapshotOptions {
  /**
   * Find the first differing natural key when parity fails (default true). A reading taken before
   * the load, or only for its mutation count, skips it: at 1,000,000 rows it groups and sorts two
   * million keys.
   */
  readonly firstDifference?: boolean;
}

/** The target's rows as `snapshot()` counts and digests them. */
export interface TargetDigest {
  readonly digest: string;
  readonly rows: number;
}
