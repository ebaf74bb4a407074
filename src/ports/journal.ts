import type {
  AuditRecord,
  CommitIntentMetadata,
  CommitJournalEntry,
  CommitTransitionEvidence,
  JournalHistoryRecord,
  RecordedResult,
} from '../contracts/journal.ts';
import type { ChainStep } from '../contracts/journal-rules.ts';
import type { LeaseClock } from '../contracts/lease-clock.ts';
import type { CommitState } from '../contracts/states.ts';

export interface CreateIntentRequest {
  readonly operationId: string;
  readonly intentDigest: string;
  readonly metadata: CommitIntentMetadata;
  readonly nowMs: number;
  /**
   * Take the executor lease in the same durable write when this call creates the intent (version
   * 2, two history records, one commit). Ignored when the intent exists already. An adapter may
   * leave the entry unleased; the executor then acquires the lease with its own call.
   */
  readonly lease?: { readonly holder: string; readonly ttlMs: number; readonly policyDigest?: string };
}

export interface CreateIntentResult {
  readonly entry: CommitJournalEntry;
  /** False when the entry existed already (whatever its digest: the caller compares). */
  readonly created: boolean;
}

export interface CompareAndSetRequest {
  readonly operationId: string;
  readonly expectedVersion: number;
  readonly expectedStates: ReadonlySet<CommitState>;
  readonly nextState: CommitState;
  readonly evidence: CommitTransitionEvidence;
  readonly nowMs: number;
  /** Recorded with the transition (TARGET_COMMITTED carries what the target proved). */
  readonly result?: RecordedResult;
  /** Required for operator-only transitions; written into the history. */
  readonly audit?: AuditRecord;
  /** Release the lease with this transition (terminal or hand-back states). */
  readonly releaseLease?: boolean;
}

/** One transition of a chain (compareAndSetChain): a compare-and-set without its own version. */
export type ChainTransition = ChainStep;

export interface CompareAndSetChainRequest {
  readonly operationId: string;
  /** The version the first transition expects; the i-th (from 0) expects `expectedVersion + i`. */
  readonly expectedVersion: number;
  /** At least one; each is judged on the entry the one before it leaves. */
  readonly transitions: readonly ChainTransition[];
  readonly nowMs: number;
}

export interface LeaseRequest {
  readonly operationId: string;
  readonly expectedVersion: number;
  readonly holder: string;
  readonly ttlMs: number;
  readonly nowMs: number;
  /**
   * The smallest epoch the lease may carry: the executor passes the target fence's epoch + 1 when
   * the fence has seen epochs this journal never issued (a reset, restored or forked journal).
   */
  readonly minEpoch?: number;
  /**
   * The digest of the deployment policy that governs this attempt, recorded in the lease's history
   * record: an audit shows which policy governed each attempt (the intent records only the first).
   */
  readonly policyDigest?: string;
}

export interface ExpireLeaseRequest {
  readonly operationId: string;
  /** The version read: the lease that ends is the one that version holds. */
  readonly expectedVersion: number;
  /** Why the lease ends (e.g. `recovery:expire-lease`); the ended lease's holder, epoch and expiry are added. */
  readonly evidence: CommitTransitionEvidence;
  readonly nowMs: number;
  /** The operator's audit record (recovery `expire-lease`); the history record is then an audit. */
  readonly audit?: AuditRecord;
}

/**
 * Told, in one line naming the holder and its expiry, when a lease was read as a clock fault and
 * taken over (lease-clock.ts): the operator should look at that holder's clock.
 */
export type JournalWarn = (message: string) => void;

/**
 * The durable commit journal (spec "Journal port").
 *
 * Contract for every adapter (checked by the conformance suite):
 * - Each method is durable before it resolves: after it returns, a crash loses nothing it wrote.
 * - Read-after-write for one operation: a `get` after a resolved write sees that write.
 * - A write that loses a race changes nothing and rejects with DPONE_TARGET_COMMIT_CAS_CONFLICT;
 *   an illegal transition rejects with DPONE_TARGET_COMMIT_ILLEGAL_TRANSITION.
 * - Storage that cannot be reached rejects with DPONE_TARGET_COMMIT_JOURNAL_UNAVAILABLE; callers
 *   must then not mutate the target.
 * - Versions start at 1 and every change adds exactly 1, with one history record per change.
 */
export interface TargetCommitJournalPort extends AsyncDisposable {
  /**
   * Whose clock decides the leases: `server` takes `now` from the journal server inside each
   * write (the requests' `nowMs` is then ignored), `caller` uses the requests' `nowMs`. Either way
   * an expiry further ahead than MAX_LEASE_TTL_MS is a clock fault, read as expired.
   */
  readonly leaseClock: LeaseClock;

  /** Create-if-absent. Concurrent creators of one id: exactly one gets `created: true`. */
  createIntent(request: CreateIntentRequest): Promise<CreateIntentResult>;

  /** One conditional update on (version, state); the transition must be in the state table. */
  compareAndSet(request: CompareAndSetRequest): Promise<CommitJournalEntry>;

  /**
   * Several compare-and-sets in ONE durable commit: all or none. Each transition is checked as
   * `compareAndSet` checks it (version, expected states, state table, audit rule — on the entry the
   * transition before it leaves, on the journal's clock), gets its own version (+1 each) and its
   * own history record, in order. A refusal of any transition (CAS_CONFLICT, ILLEGAL_TRANSITION)
   * writes nothing. Resolves to the entry after the last transition.
   */
  compareAndSetChain(request: CompareAndSetChainRequest): Promise<CommitJournalEntry>;

  /** Current entry, or null when no intent exists. */
  get(operationId: string): Promise<CommitJournalEntry | null>;

  /**
   * Acquire the executor lease with compare-and-set on the version: allowed when there is no
   * lease, the lease expired at `nowMs`, or `holder` already holds it. A new holder gets epoch =
   * max(last_epoch + 1, minEpoch); a renewal keeps its epoch, or raises it to `minEpoch` when that
   * is higher. `last_epoch` follows, so epochs never repeat. State does not change.
   */
  acquireLease(request: LeaseRequest): Promise<CommitJournalEntry>;

  /**
   * Ends the lease the version holds without changing the state (compare-and-set on the version;
   * CAS_CONFLICT when it moved or no lease is held). `last_epoch` stays: the next holder still
   * takes a new epoch.
   */
  expireLease(request: ExpireLeaseRequest): Promise<CommitJournalEntry>;

  /** The append-only history, ordered by version. */
  history(operationId: string): Promise<readonly JournalHistoryRecord[]>;

  /** Every operation id in the journal (for inspection tools and the harness). */
  list(): Promise<readonly string[]>;

  close(): Promise<void>;
}
