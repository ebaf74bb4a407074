import type { CommitState } from './states.ts';

/** Safe, non-secret metadata stored with an intent. No SQL, credentials, rows or URLs. */
export interface CommitIntentMetadata {
  readonly workload_id: string;
  /** Safe target identity, e.g. "<engine>:target.events" — never a connection string. */
  readonly target_identity: string;
  readonly route?: string;
  readonly load_strategy?: string;
  /**
   * Where the target fence lives (safe identity, e.g. "<engine>:dw._dpone_fence"), recorded when
   * the intent is created. A retry whose fence would live elsewhere is a divergence. Absent in
   * entries written before it existed: those are not compared.
   */
  readonly fence_location?: string;
  /**
   * A digest of each field the intent digest covers (identity.ts intentFieldDigests), so a
   * conflicting intent is refused naming the fields that differ. Absent in older entries.
   */
  readonly intent_fields?: Readonly<Record<string, string>>;
  /**
   * The rollout mode of the run that created the intent (`enforced`, or `unmanaged` when no
   * deployment policy governed it) and the digest of that policy file: an audit shows which
   * policy governed the operation. Absent in older entries.
   */
  readonly deployment_mode?: string;
  readonly deployment_policy_digest?: string;
}

/**
 * The current executor lease. `epoch` grows on every acquisition or takeover (by one, or to the
 * caller's `minEpoch` when that is higher) and never repeats for one operation.
 */
export interface ExecutorLease {
  readonly holder: string;
  readonly epoch: number;
  /** Wall-clock milliseconds since the Unix epoch after which another holder may take over. */
  readonly expires_at_ms: number;
}

/** The result recorded when the target committed; returned unchanged by later attempts. */
export interface RecordedResult {
  readonly rows_written: number;
  readonly fence_epoch: number;
  readonly target_identity: string;
}

export interface CommitJournalEntry {
  readonly operation_id: string;
  readonly intent_digest: string;
  readonly state: CommitState;
  /** Starts at 1 on create; every change (transition, lease, audit) adds exactly 1. */
  readonly version: number;
  readonly lease: ExecutorLease | null;
  /** Highest lease epoch ever issued for this operation; epochs never repeat, even after release. */
  readonly last_epoch: number;
  readonly metadata: CommitIntentMetadata;
  readonly result: RecordedResult | null;
  readonly created_at_ms: number;
  readonly updated_at_ms: number;
}

/** Safe evidence attached to a transition. */
export interface CommitTransitionEvidence {
  /**
   * What justified the transition, from a fixed vocabulary (e.g. "fence:committed",
   * "lease:takeover", "fence:committed-before-journal" when the target proved a commit the
   * journal did not know of).
   */
  readonly reason: string;
  readonly fence_status?: 'committed' | 'not-committed' | 'unknown';
  readonly fence_epoch?: number;
  readonly rows_written?: number;
  readonly holder?: string;
  /** Error code when the transition records a failure. */
  readonly error_code?: string;
  /**
   * The lease this change ended, when it ended one that was not the writer's own: a takeover of a
   * clock-faulted lease (`lease:takeover-clock-fault`) or an operator's `expire-lease`.
   */
  readonly previous_holder?: string;
  readonly previous_epoch?: number;
  readonly previous_expires_at_ms?: number;
  /** On a lease record: the digest of the deployment policy the attempt taking the lease ran under. */
  readonly deployment_policy_digest?: string;
}

/** An operator's audit fields, required on recovery transitions. */
export interface AuditRecord {
  readonly actor: string;
  readonly action: string;
  readonly reason: string;
  readonly at_ms: number;
  readonly reference: string;
  /**
   * The lease epoch the action installed in the target fence before it read the fence's proof
   * (operator actions fence first: no holder of an older epoch can commit after the proof was read).
   */
  readonly fence_epoch?: number;
}

export type HistoryKind = 'intent' | 'transition' | 'lease' | 'result' | 'audit';

/** One append-only history record; its `version` is the entry version after the change. */
export interface JournalHistoryRecord {
  readonly operation_id: string;
  readonly version: number;
  readonly kind: HistoryKind;
  readonly from_state: CommitState | null;
  readonly to_state: CommitState;
  readonly at_ms: number;
  readonly lease_holder: string | null;
  readonly lease_epoch: number | null;
  readonly evidence: CommitTransitionEvidence;
  readonly audit: AuditRecord | null;
}
