import { DponeError, ERROR_CODES, isDponeError } from '../contracts/errors.ts';
import type { CommitJournalEntry, CommitTransitionEvidence } from '../contracts/journal.ts';
import type { CommitState } from '../contracts/states.ts';
import { casPoint } from '../contracts/fault-point-names.ts';
import type { ExecutorDeps, OperationRequest } from './executor-types.ts';
import { safe } from './fence-decision.ts';
import { journalCall } from './journal-call.ts';

/**
 * One execution's journal moves, each between its fault points: the lease, compare-and-set
 * transitions and completion. Every journal failure that is not ours is JOURNAL_UNAVAILABLE.
 */
export class JournalSteps {
  readonly #deps: ExecutorDeps;
  readonly #request: OperationRequest;

  constructor(deps: ExecutorDeps, request: OperationRequest) {
    this.#deps = deps;
    this.#request = request;
  }

  call<T>(operation: () => Promise<T>): Promise<T> {
    return journalCall(operation, this.#request.operationId);
  }

  async lease(entry: CommitJournalEntry): Promise<CommitJournalEntry> {
    // Holding the lease by name is enough for this execution, even past its expiry: expiry only
    // lets another executor take over, and a takeover bumps the version (our next CAS loses) and
    // the fence epoch (our mutation is refused). Not renewing keeps each run's fault-point trace
    // independent of timing, so the harness can replay it point for point.
    if (entry.lease?.holder === this.#request.holder) return entry;
    return this.acquire(entry);
  }

  /** Acquires (or renews) the lease on the version read; `minEpoch` moves it above a fence's epoch. */
  async acquire(entry: CommitJournalEntry, minEpoch?: number): Promise<CommitJournalEntry> {
    const request = this.#request;
    await this.#deps.faults.hit('lease.acquire:before');
    const leased = await this.call(() =>
      this.#deps.journal.acquireLease({
        operationId: request.operationId,
        expectedVersion: entry.version,
        holder: request.holder,
        ttlMs: request.leaseTtlMs,
        nowMs: this.#deps.clock.nowMs(),
        ...(minEpoch === undefined ? {} : { minEpoch }),
        // Which deployment policy governed this attempt, on its lease record (the intent has the first).
        ...(request.metadata.deployment_policy_digest
          ? { policyDigest: request.metadata.deployment_policy_digest }
          : {}),
      }),
    );
    await this.#deps.faults.hit('lease.acquire:after');
    return leased;
  }

  async cas(
    entry: CommitJournalEntry,
    expected: readonly CommitState[],
    next: CommitState,
    evidence: CommitTransitionEvidence,
    releaseLease = false,
    result?: CommitJournalEntry['result'],
  ): Promise<CommitJournalEntry> {
    await this.#deps.faults.hit(casPoint(entry.state, next, 'before'));
    const write = (version: number) =>
      this.call(() =>
        this.#deps.journal.compareAndSet({
          operationId: this.#request.operationId,
          expectedVersion: version,
          expectedStates: new Set(expected),
          nextState: next,
          evidence: { ...evidence, holder: this.#request.holder },
          nowMs: this.#deps.clock.nowMs(),
          releaseLease,
          ...(result ? { result } : {}),
        }),
      );
    const updated = await write(entry.version).catch(async (error: unknown) => {
      if (!this.#deps.flaws?.leaseBlindCas || !isDponeError(error, ERROR_CODES.CAS_CONFLICT)) throw error;
      // Unsafe variant only: the lost race is retried on the version read back, whoever's lease it carries.
      const fresh = await this.call(() => this.#deps.journal.get(this.#request.operationId));
      if (fresh === null || !expected.includes(fresh.state)) throw error;
      return write(fresh.version);
    });
    await this.#deps.faults.hit(casPoint(entry.state, next, 'after'));
    return updated;
  }

  /** TARGET_COMMITTED | COMMITTED_INCOMPLETE -> COMPLETE, or -> COMMITTED_INCOMPLETE on failure. */
  async complete(entry: CommitJournalEntry): Promise<CommitJournalEntry> {
    await this.#deps.faults.hit('state.complete:before');
    try {
      await this.#deps.state.complete(entry);
    } catch (error) {
      if (entry.state === 'TARGET_COMMITTED') {
        entry = await this.cas(
          entry,
          ['TARGET_COMMITTED'],
          'COMMITTED_INCOMPLETE',
          { reason: 'state:incomplete', error_code: ERROR_CODES.COMMITTED_INCOMPLETE },
          true,
        );
      }
      throw new DponeError(
        ERROR_CODES.COMMITTED_INCOMPLETE,
        'the target committed but state or evidence could not be made durable; a retry completes it without mutating',
        safe(entry),
        { cause: error },
      );
    }
    await this.#deps.faults.hit('state.complete:after');
    return this.cas(
      entry,
      ['TARGET_COMMITTED', 'COMMITTED_INCOMPLETE'],
      'COMPLETE',
      { reason: 'state:complete' },
      true,
    );
  }
}
