import { DponeError, ERROR_CODES } from './errors.ts';
import type {
  AuditRecord,
  CommitJournalEntry,
  CommitTransitionEvidence,
  ExecutorLease,
  JournalHistoryRecord,
  RecordedResult,
} from './journal.ts';
import { CLOCK_FAULT_TAKEOVER, leaseClockFault, leaseExpired } from './lease-clock.ts';
import type { CommitState } from './states.ts';
import { isLegalTransition, isOperatorOnlyTransition } from './states.ts';

/**
 * Pure rules shared by every journal adapter: an adapter reads the entry, asks these functions for
 * the next entry and its history record, then writes both with one conditional update on the
 * version it read. Keeping legality here means no adapter can drift from the state table.
 */

/** What one transition changes, without the version it expects or its time: a step of a chain too. */
export interface ChainStep {
  readonly expectedStates: ReadonlySet<CommitState>;
  readonly nextState: CommitState;
  readonly evidence: CommitTransitionEvidence;
  /** Recorded with the transition (TARGET_COMMITTED carries what the target proved). */
  readonly result?: RecordedResult;
  /** Required for operator-only transitions; written into the history. */
  readonly audit?: AuditRecord;
  /** Release the lease with this transition (terminal or hand-back states). */
  readonly releaseLease?: boolean;
}

/** One compare-and-set (planTransition): the step, on the version read, at `nowMs`. */
export interface TransitionInput extends ChainStep {
  readonly expectedVersion: number;
  readonly nowMs: number;
}

export interface PlannedChange {
  readonly entry: CommitJournalEntry;
  readonly record: JournalHistoryRecord;
}

function conflict(entry: CommitJournalEntry, message: string): DponeError {
  return new DponeError(ERROR_CODES.CAS_CONFLICT, message, {
    operationId: entry.operation_id,
    state: entry.state,
    journalVersion: entry.version,
  });
}

export function newEntry(
  operationId: string,
  intentDigest: string,
  metadata: CommitJournalEntry['metadata'],
  nowMs: number,
): PlannedChange {
  const entry: CommitJournalEntry = {
    operation_id: operationId,
    intent_digest: intentDigest,
    state: 'PREPARING',
    version: 1,
    lease: null,
    last_epoch: 0,
    metadata,
    result: null,
    created_at_ms: nowMs,
    updated_at_ms: nowMs,
  };
  return {
    entry,
    record: historyRecord(entry, 'intent', null, { reason: 'intent:created' }, null),
  };
}

/**
 * A new intent as the changes it makes, in version order: the intent (version 1) and, when the
 * creator asks for it, its lease (version 2) in the same durable write. Folding the first lease
 * into the create saves a journal commit per operation without hiding a version: each change
 * still adds exactly 1 and leaves its own history record.
 */
export function newIntent(
  operationId: string,
  intentDigest: string,
  metadata: CommitJournalEntry['metadata'],
  nowMs: number,
  lease?: { readonly holder: string; readonly ttlMs: number; readonly policyDigest?: string },
): readonly [PlannedChange, ...PlannedChange[]] {
  const created = newEntry(operationId, intentDigest, metadata, nowMs);
  if (lease === undefined) return [created];
  return [created, planLease(created.entry, { ...lease, expectedVersion: 1, nowMs })];
}

function historyRecord(
  entry: CommitJournalEntry,
  kind: JournalHistoryRecord['kind'],
  from: CommitState | null,
  evidence: CommitTransitionEvidence,
  audit: AuditRecord | null,
): JournalHistoryRecord {
  return {
    operation_id: entry.operation_id,
    version: entry.version,
    kind,
    from_state: from,
    to_state: entry.state,
    at_ms: entry.updated_at_ms,
    lease_holder: entry.lease?.holder ?? null,
    lease_epoch: entry.lease?.epoch ?? null,
    evidence,
    audit,
  };
}

/** Computes a compare-and-set, or throws CAS_CONFLICT / ILLEGAL_TRANSITION. */
export function planTransition(current: CommitJournalEntry, input: TransitionInput): PlannedChange {
  if (current.version !== input.expectedVersion) {
    throw conflict(
      current,
      `journal entry is at version ${current.version}, expected ${input.expectedVersion}`,
    );
  }
  if (!input.expectedStates.has(current.state)) {
    throw conflict(current, `journal entry is in state ${current.state}, not an expected state`);
  }
  if (!isLegalTransition(current.state, input.nextState)) {
    throw new DponeError(
      ERROR_CODES.ILLEGAL_TRANSITION,
      `transition ${current.state} -> ${input.nextState} is not in the state table`,
      { operationId: current.operation_id, state: current.state, journalVersion: current.version },
    );
  }
  if (isOperatorOnlyTransition(current.state, input.nextState) && input.audit === undefined) {
    throw new DponeError(
      ERROR_CODES.ILLEGAL_TRANSITION,
      `transition ${current.state} -> ${input.nextState} requires an operator audit record`,
      { operationId: current.operation_id, state: current.state, journalVersion: current.version },
    );
  }
  const entry: CommitJournalEntry = {
    ...current,
    state: input.nextState,
    version: current.version + 1,
    lease: input.releaseLease ? null : current.lease,
    result: input.result ?? current.result,
    updated_at_ms: input.nowMs,
  };
  const kind = input.audit ? 'audit' : 'transition';
  return { entry, record: historyRecord(entry, kind, current.state, input.evidence, input.audit ?? null) };
}

/** Transitions written in one journal commit (planTransitions). */
export interface ChainInput {
  /** The version the first step expects; step i (from 0) expects `expectedVersion + i`. */
  readonly expectedVersion: number;
  readonly transitions: readonly ChainStep[];
  readonly nowMs: number;
}

/**
 * Several compare-and-sets planned as one change set: each step is judged by planTransition on the
 * entry the step before it planned (its version, its state, the table, the audit rule), so a chain
 * is exactly the sequence of single transitions it replaces — versions +1 each, one history record
 * each — only written in one durable commit. Any step that would be refused refuses the whole
 * chain, and the adapter writes nothing. A step after a released lease sees no lease.
 */
export function planTransitions(current: CommitJournalEntry, input: ChainInput): PlannedChange[] {
  if (input.transitions.length === 0) {
    throw new DponeError(ERROR_CODES.INTERNAL, 'a transition chain needs at least one step', {
      operationId: current.operation_id,
    });
  }
  const planned: PlannedChange[] = [];
  let entry = current;
  for (const [index, step] of input.transitions.entries()) {
    const change = planTransition(entry, {
      ...step,
      expectedVersion: input.expectedVersion + index,
      nowMs: input.nowMs,
    });
    planned.push(change);
    entry = change.entry;
  }
  return planned;
}

export interface LeaseInput {
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
  /**
   * UNSAFE, the harness's `trust-holder-clock` variant only: believe any stored expiry, however far
   * ahead (the journal before issue 30), so a holder whose clock ran ahead wedges the operation.
   */
  readonly trustStoredExpiry?: boolean;
}

/** The epoch a lease acquisition gives: never a repeat, never below `minEpoch`. */
export function leaseEpoch(current: CommitJournalEntry, holder: string, minEpoch = 0): number {
  const held = current.lease;
  const base = held !== null && held.holder === holder ? held.epoch : current.last_epoch + 1;
  return Math.max(base, minEpoch);
}

/**
 * Refuses, before anything is written, a lease whose expiry could not be stored and read back
 * exactly (past 2^53 ms a number loses precision; a journal holding such a row could never be
 * read again, and every later run would stop on it).
 */
export function checkLeaseInput(input: Pick<LeaseInput, 'ttlMs' | 'nowMs'>): void {
  const { ttlMs, nowMs } = input;
  if (
    !Number.isSafeInteger(ttlMs) ||
    ttlMs < 0 ||
    !Number.isSafeInteger(nowMs) ||
    !Number.isSafeInteger(nowMs + ttlMs)
  ) {
    throw new DponeError(
      ERROR_CODES.INVALID_INPUT,
      'the lease TTL gives an expiry the journal could not store and read back exactly',
      { field: 'lease_ttl_ms' },
    );
  }
}

/** Computes a lease acquisition, renewal or takeover, or throws CAS_CONFLICT / INVALID_INPUT. */
export function planLease(current: CommitJournalEntry, input: LeaseInput): PlannedChange {
  checkLeaseInput(input);
  if (current.version !== input.expectedVersion) {
    throw conflict(
      current,
      `journal entry is at version ${current.version}, expected ${input.expectedVersion}`,
    );
  }
  const held = current.lease;
  const renewal = held !== null && held.holder === input.holder;
  const expired = (lease: ExecutorLease) =>
    input.trustStoredExpiry === true ? lease.expires_at_ms <= input.nowMs : leaseExpired(lease, input.nowMs);
  if (held !== null && !renewal && !expired(held)) {
    throw conflict(current, 'another executor holds an unexpired lease');
  }
  // An expiry further ahead than any TTL allows was written by a clock that ran ahead: expired.
  const clockFault =
    held !== null && !renewal && input.trustStoredExpiry !== true && leaseClockFault(held, input.nowMs);
  const lease: ExecutorLease = {
    holder: input.holder,
    epoch: leaseEpoch(current, input.holder, input.minEpoch),
    expires_at_ms: input.nowMs + input.ttlMs,
  };
  const entry: CommitJournalEntry = {
    ...current,
    lease,
    last_epoch: Math.max(current.last_epoch, lease.epoch),
    version: current.version + 1,
    updated_at_ms: input.nowMs,
  };
  const reason = renewal
    ? 'lease:renewed'
    : held === null
      ? 'lease:acquired'
      : clockFault
        ? CLOCK_FAULT_TAKEOVER
        : 'lease:takeover';
  const evidence: CommitTransitionEvidence = {
    reason,
    holder: input.holder,
    ...(clockFault && held !== null ? previousLease(held) : {}),
    ...(input.policyDigest ? { deployment_policy_digest: input.policyDigest } : {}),
  };
  return { entry, record: historyRecord(entry, 'lease', current.state, evidence, null) };
}

/** The evidence fields naming a lease a change ended that was not the writer's own. */
export function previousLease(lease: ExecutorLease): Partial<CommitTransitionEvidence> {
  return {
    previous_holder: lease.holder,
    previous_epoch: lease.epoch,
    previous_expires_at_ms: lease.expires_at_ms,
  };
}

export interface LeaseExpiryInput {
  /** The version read: the lease that ends is the one that version holds. */
  readonly expectedVersion: number;
  /** Why the lease ends (e.g. `recovery:expire-lease`); the ended lease's holder, epoch and expiry are added. */
  readonly evidence: CommitTransitionEvidence;
  readonly nowMs: number;
  /** An operator's audit record (recovery `expire-lease`); without it the record is a lease change. */
  readonly audit?: AuditRecord;
}

/**
 * Ends the current lease without changing the state (an operator's `expire-lease` for a holder
 * known dead, or a holder handing back a lease it took for nothing). `last_epoch` stays, so the
 * next holder still takes a new epoch. Throws CAS_CONFLICT on a stale version or when no lease is held.
 */
export function planLeaseExpiry(current: CommitJournalEntry, input: LeaseExpiryInput): PlannedChange {
  if (current.version !== input.expectedVersion) {
    throw conflict(
      current,
      `journal entry is at version ${current.version}, expected ${input.expectedVersion}`,
    );
  }
  if (current.lease === null) throw conflict(current, 'no executor holds a lease to end');
  const entry: CommitJournalEntry = {
    ...current,
    lease: null,
    version: current.version + 1,
    updated_at_ms: input.nowMs,
  };
  const evidence = { ...input.evidence, ...previousLease(current.lease) };
  const kind = input.audit ? 'audit' : 'lease';
  return { entry, record: historyRecord(entry, kind, current.state, evidence, input.audit ?? null) };
}
