import { DponeError, ERROR_CODES, isDponeError } from '../contracts/errors.ts';
import type {
  CommitIntentMetadata,
  CommitJournalEntry,
  CommitTransitionEvidence,
} from '../contracts/journal.ts';
import type { CommitState } from '../contracts/states.ts';
import type { Clock } from '../ports/clock.ts';
import type { FenceAnswer, LoadStrategy, SourceConnector, TargetConnector } from '../ports/connector.ts';
import type { FaultPoints } from '../ports/fault-points.ts';
import type { TargetCommitJournalPort } from '../ports/journal.ts';
import type { StateSink } from '../ports/state-sink.ts';
import { journalCall } from './journal-call.ts';
import { releaseBeforeMutation } from './pre-mutation-release.ts';

export interface ExecutorDeps {
  readonly journal: TargetCommitJournalPort;
  readonly source: SourceConnector;
  readonly target: TargetConnector;
  readonly state: StateSink;
  readonly faults: FaultPoints;
  readonly clock: Clock;
}

export interface OperationRequest {
  readonly operationId: string;
  readonly intentDigest: string;
  readonly metadata: CommitIntentMetadata;
  readonly strategy: LoadStrategy;
  readonly partitionColumn: string;
  readonly partitionValue: string;
  /** This executor's lease holder name; not part of any identity. */
  readonly holder: string;
  readonly leaseTtlMs: number;
}

/** How the operation ended for this attempt. Only `committed` and `already-complete` are success. */
export interface ExecutionOutcome {
  readonly status: 'committed' | 'already-complete' | 'completed-after-recovery';
  readonly operationId: string;
  readonly state: CommitState;
  readonly version: number;
  readonly rowsWritten: number;
  readonly fenceEpoch: number;
  /** Whether this attempt itself mutated the target. */
  readonly mutated: boolean;
}

const MAX_STEPS = 16;

/** Per-execution memory: the lease epoch this execution has installed in the target fence. */
interface FenceRun {
  installedEpoch: number | null;
}

/**
 * The recovery-aware executor: the spec's first-attempt and retry algorithms as one loop over the
 * journal state. Every path reads the journal before any source or target I/O; the target is only
 * mutated from PREPARED -> COMMITTING under this executor's lease epoch, after the fence holds it.
 */
export class RecoveryAwareExecutor {
  readonly #deps: ExecutorDeps;

  constructor(deps: ExecutorDeps) {
    this.#deps = deps;
  }

  async execute(request: OperationRequest): Promise<ExecutionOutcome> {
    const { faults } = this.#deps;
    await faults.hit('journal.read:before');
    let entry = await this.#call(() => this.#deps.journal.get(request.operationId), request);
    if (entry === null) {
      await faults.hit('journal.create:before');
      const created = await this.#call(
        () =>
          this.#deps.journal.createIntent({
            operationId: request.operationId,
            intentDigest: request.intentDigest,
            metadata: request.metadata,
            nowMs: this.#deps.clock.nowMs(),
          }),
        request,
      );
      entry = created.entry;
      await faults.hit('journal.create:after');
    }
    if (entry.intent_digest !== request.intentDigest) {
      throw new DponeError(
        ERROR_CODES.INTENT_CONFLICT,
        'operation id already has a journal intent with another intent digest; refusing before any source or target I/O',
        { operationId: entry.operation_id, state: entry.state, journalVersion: entry.version },
      );
    }
    try {
      return await this.#drive(entry, request);
    } catch (error) {
      // A failure before any mutation hands the lease back, so a retry need not wait for its expiry.
      await releaseBeforeMutation(this.#deps.journal, this.#deps.clock, request, error);
      throw error;
    }
  }

  async #drive(initial: CommitJournalEntry, request: OperationRequest): Promise<ExecutionOutcome> {
    let entry = initial;
    let mutated = false;
    let recovered = false;
    let attemptedMutation = false;
    const run: FenceRun = { installedEpoch: null };
    for (let step = 0; step < MAX_STEPS; step++) {
      switch (entry.state) {
        case 'COMPLETE':
          return this.#outcome(
            entry,
            mutated ? 'committed' : recovered ? 'completed-after-recovery' : 'already-complete',
            mutated,
          );
        case 'COMMIT_UNKNOWN':
          throw new DponeError(
            ERROR_CODES.COMMIT_UNKNOWN,
            'the target could not prove whether the operation committed; explicit reconciliation is required',
            safe(entry),
          );
        case 'TARGET_COMMITTED':
        case 'COMMITTED_INCOMPLETE':
          recovered = true;
          entry = await this.#complete(await this.#lease(entry, request), request);
          break;
        case 'COMMITTING':
          recovered = true;
          entry = await this.#reconcile(await this.#fenceUnderLease(entry, request, run), request);
          break;
        case 'FAILED_PRE_COMMIT':
          entry = await this.#cas(
            await this.#lease(entry, request),
            request,
            ['FAILED_PRE_COMMIT'],
            'PREPARING',
            {
              reason: 'retry:after-pre-commit-failure',
            },
          );
          break;
        case 'PREPARING':
          entry = await this.#fenceUnderLease(entry, request, run);
          entry = await this.#cas(entry, request, ['PREPARING'], 'PREPARED', {
            reason: 'fence:prepared',
            fence_epoch: entry.lease?.epoch,
          });
          break;
        case 'PREPARED':
          if (attemptedMutation) {
            // The fence proved our mutation did not land. Stop here: the next attempt takes a new
            // epoch, which also fences any of our statements still in flight on the server.
            throw new DponeError(
              ERROR_CODES.PRE_COMMIT_FAILED,
              'the target proved the mutation did not land; an ordinary retry is safe',
              safe(entry),
            );
          }
          attemptedMutation = true;
          entry = await this.#commit(await this.#fenceUnderLease(entry, request, run), request);
          mutated = entry.state === 'TARGET_COMMITTED';
          break;
      }
    }
    throw new DponeError(ERROR_CODES.INTERNAL, 'executor did not converge', safe(entry));
  }

  /**
   * Acquires the lease (unless this executor holds it); its epoch is installed in the target first.
   * Whether the epoch is installed is tracked per execution, not inferred from the journal: a
   * process that crashed between acquiring the lease and preparing the fence may come back under
   * the same holder name and the same (renewed) epoch, and must still install it.
   */
  async #fenceUnderLease(
    entry: CommitJournalEntry,
    request: OperationRequest,
    run: FenceRun,
  ): Promise<CommitJournalEntry> {
    const leased = await this.#lease(entry, request);
    const epoch = leased.lease?.epoch ?? 0;
    if (run.installedEpoch !== epoch) {
      await this.#deps.faults.hit('fence.prepare:before');
      await this.#deps.target.prepareFence({ operationId: request.operationId, epoch });
      await this.#deps.faults.hit('fence.prepare:after');
      run.installedEpoch = epoch;
    }
    return leased;
  }

  async #lease(entry: CommitJournalEntry, request: OperationRequest): Promise<CommitJournalEntry> {
    // Holding the lease by name is enough for this execution, even past its expiry: expiry only
    // lets another executor take over, and a takeover bumps the version (our next CAS loses) and
    // the fence epoch (our mutation is refused). Not renewing keeps each run's fault-point trace
    // independent of timing, so the harness can replay it point for point.
    if (entry.lease?.holder === request.holder) return entry;
    await this.#deps.faults.hit('lease.acquire:before');
    const leased = await this.#call(
      () =>
        this.#deps.journal.acquireLease({
          operationId: request.operationId,
          expectedVersion: entry.version,
          holder: request.holder,
          ttlMs: request.leaseTtlMs,
          nowMs: this.#deps.clock.nowMs(),
        }),
      request,
    );
    await this.#deps.faults.hit('lease.acquire:after');
    return leased;
  }

  /** PREPARED -> COMMITTING -> mutate -> prove with the fence. */
  async #commit(entry: CommitJournalEntry, request: OperationRequest): Promise<CommitJournalEntry> {
    const { faults, source, target } = this.#deps;
    const epoch = entry.lease?.epoch ?? 0;
    await faults.hit('source.read:before');
    let batch;
    try {
      batch = await source.read({
        partitionColumn: request.partitionColumn,
        partitionValue: request.partitionValue,
      });
    } catch (error) {
      await this.#cas(
        entry,
        request,
        ['PREPARED'],
        'FAILED_PRE_COMMIT',
        {
          reason: 'source:read-failed',
          error_code: ERROR_CODES.PRE_COMMIT_FAILED,
        },
        true,
      );
      throw new DponeError(
        ERROR_CODES.PRE_COMMIT_FAILED,
        'source read failed before any target mutation',
        safe(entry),
        {
          cause: error,
        },
      );
    }
    await faults.hit('source.read:after');
    const committing = await this.#cas(entry, request, ['PREPARED'], 'COMMITTING', {
      reason: 'mutation:begin',
      fence_epoch: epoch,
    });
    try {
      await target.mutate({
        fence: { operationId: request.operationId, epoch },
        strategy: request.strategy,
        partitionColumn: request.partitionColumn,
        partitionValue: request.partitionValue,
        batch,
      });
    } catch (error) {
      if (isDponeError(error, ERROR_CODES.FENCED)) {
        // A newer epoch owns the fence: this executor is a zombie; it writes nothing more.
        throw error;
      }
      // The driver's error does not prove rollback: only the fence decides.
    }
    await faults.hit('target.mutate:after');
    return this.#reconcile(committing, request);
  }

  /** Asks the fence and moves the journal only on proof. */
  async #reconcile(entry: CommitJournalEntry, request: OperationRequest): Promise<CommitJournalEntry> {
    await this.#deps.faults.hit('fence.query:before');
    const reported: FenceAnswer = await this.#deps.target.queryFence(request.operationId);
    // Spec: without a certified capability, COMMITTING after process loss becomes COMMIT_UNKNOWN.
    const answer: FenceAnswer =
      this.#deps.target.capability === 'none' ? { ...reported, status: 'unknown' } : reported;
    await this.#deps.faults.hit('fence.query:after');
    const evidence: CommitTransitionEvidence = {
      reason: `fence:${answer.status}`,
      fence_status: answer.status,
      fence_epoch: answer.committedEpoch ?? answer.epoch ?? undefined,
      rows_written: answer.rowsWritten ?? undefined,
    };
    if (answer.status === 'committed') {
      return this.#cas(entry, request, ['COMMITTING'], 'TARGET_COMMITTED', evidence, false, {
        rows_written: answer.rowsWritten ?? 0,
        fence_epoch: answer.committedEpoch ?? answer.epoch ?? 0,
        target_identity: request.metadata.target_identity,
      });
    }
    if (answer.status === 'not-committed') {
      return this.#cas(entry, request, ['COMMITTING'], 'PREPARED', evidence, true);
    }
    const unknown = await this.#cas(entry, request, ['COMMITTING'], 'COMMIT_UNKNOWN', evidence, true);
    throw new DponeError(
      ERROR_CODES.COMMIT_UNKNOWN,
      'the target could not prove whether the operation committed; explicit reconciliation is required',
      safe(unknown),
    );
  }

  /** TARGET_COMMITTED | COMMITTED_INCOMPLETE -> COMPLETE, or -> COMMITTED_INCOMPLETE on failure. */
  async #complete(entry: CommitJournalEntry, request: OperationRequest): Promise<CommitJournalEntry> {
    await this.#deps.faults.hit('state.complete:before');
    try {
      await this.#deps.state.complete(entry);
    } catch (error) {
      if (entry.state === 'TARGET_COMMITTED') {
        entry = await this.#cas(
          entry,
          request,
          ['TARGET_COMMITTED'],
          'COMMITTED_INCOMPLETE',
          {
            reason: 'state:incomplete',
            error_code: ERROR_CODES.COMMITTED_INCOMPLETE,
          },
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
    return this.#cas(
      entry,
      request,
      ['TARGET_COMMITTED', 'COMMITTED_INCOMPLETE'],
      'COMPLETE',
      { reason: 'state:complete' },
      true,
    );
  }

  async #cas(
    entry: CommitJournalEntry,
    request: OperationRequest,
    expected: readonly CommitState[],
    next: CommitState,
    evidence: CommitTransitionEvidence,
    releaseLease = false,
    result?: CommitJournalEntry['result'],
  ): Promise<CommitJournalEntry> {
    const point = `cas:${entry.state}->${next}`;
    await this.#deps.faults.hit(`${point}:before`);
    const updated = await this.#call(
      () =>
        this.#deps.journal.compareAndSet({
          operationId: request.operationId,
          expectedVersion: entry.version,
          expectedStates: new Set(expected),
          nextState: next,
          evidence: { ...evidence, holder: request.holder },
          nowMs: this.#deps.clock.nowMs(),
          releaseLease,
          ...(result ? { result } : {}),
        }),
      request,
    );
    await this.#deps.faults.hit(`${point}:after`);
    return updated;
  }

  #call<T>(operation: () => Promise<T>, request: OperationRequest): Promise<T> {
    return journalCall(operation, request.operationId);
  }

  #outcome(
    entry: CommitJournalEntry,
    status: ExecutionOutcome['status'],
    mutated: boolean,
  ): ExecutionOutcome {
    return {
      status,
      operationId: entry.operation_id,
      state: entry.state,
      version: entry.version,
      rowsWritten: entry.result?.rows_written ?? 0,
      fenceEpoch: entry.result?.fence_epoch ?? 0,
      mutated,
    };
  }
}

function safe(entry: CommitJournalEntry) {
  return { operationId: entry.operation_id, state: entry.state, journalVersion: entry.version };
}
