import type { CommitIntentMetadata, CommitJournalEntry, JournalHistoryRecord } from '../contracts/journal.ts';
import type { ChainStep, LeaseExpiryInput, LeaseInput, TransitionInput } from '../contracts/journal-rules.ts';
import type { LeaseClock } from '../contracts/lease-clock.ts';

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

/** A compare-and-set of one operation's entry: the transition the journal rules judge. */
export interface CompareAndSetRequest extends TransitionInput {
  readonly operationId: string;
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

/** A lease acquisition, renewal or takeover on one operation's entry (the journal rules' LeaseInput). */
export interface LeaseRequest extends Omit<LeaseInput, 'trustStoredExpiry'> {
  readonly operationId: string;
}

/** The end of the lease the version holds (the journal rules' LeaseExpiryInput). */
export interface ExpireLeaseRequest extends LeaseExpiryInput {
  readonly operationId: string;
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
