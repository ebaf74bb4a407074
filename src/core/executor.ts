import { DponeError, ERROR_CODES, PERMANENT_CAUSE_CODES, isDponeError } from '../contracts/errors.ts';
import type {
  CommitIntentMetadata,
  CommitJournalEntry,
  CommitTransitionEvidence,
} from '../contracts/journal.ts';
import type { CommitState } from '../contracts/states.ts';
import type { Clock } from '../ports/clock.ts';
import type {
  FenceAnswer,
  FenceEvidence,
  FenceRef,
  LoadStrategy,
  MutationReceipt,
  SourceConnector,
  TargetConnector,
} from '../ports/connector.ts';
import type { FaultPoints } from '../ports/fault-points.ts';
import type { TargetCommitJournalPort } from '../ports/journal.ts';
import type { StateSink } from '../ports/state-sink.ts';
import {
  adoptionEvidence,
  assertSameFenceLocation,
  assertSameIntent,
  fenceMissing,
  reconcileFence,
  safe,
} from './fence-decision.ts';
import { journalCall } from './journal-call.ts';

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
  /** Recorded with a new intent; `fence_location` is compared with the journal's on every run. */
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
  /** Whether this attempt's own write is what the target fence proves committed. */
  readonly mutated: boolean;
}

const MAX_STEPS = 16;
/** How often one step may move its lease above a fence that has seen newer epochs. */
const MAX_FENCE_ROUNDS = 3;

/** Per-execution memory: the lease epoch this execution has installed in the target fence. */
interface FenceRun {
  installedEpoch: number | null;
  /** What the fence answered when this execution installed its epoch. */
  answer: FenceAnswer | null;
  /** Why this execution's mutation was refused, when the target named a cause a retry cannot fix. */
  refusal: DponeError | null;
}

/** An error naming a cause a retry cannot fix (credentials, privilege, missing object, data, input). */
function permanent(error: unknown): DponeError | null {
  return isDponeError(error) && PERMANENT_CAUSE_CODES.has(error.code) ? (error as DponeError) : null;
}

/** The fence as this step found it, under the lease it holds now. */
interface Fenced {
  readonly entry: CommitJournalEntry;
  readonly answer: FenceAnswer;
}

/**
 * The recovery-aware executor: the spec's first-attempt and retry algorithms as one loop over the
 * journal state. Every path reads the journal before any source or target I/O; the target is only
 * mutated from PREPARED -> COMMITTING under this executor's lease epoch, after the fence holds it.
 * The target fence is the last line of defense: whatever the journal says, the executor acts on
 * the fence's answer — a fence that already committed this operation is never written again (the
 * journal catches up through legal transitions), a fence that has seen newer epochs makes the
 * lease move above them, and a fence that is missing where the journal says it was prepared
 * stops the run.
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
        safe(entry),
      );
    }
    assertSameFenceLocation(entry, request.metadata.fence_location);
    return this.#drive(entry, request);
  }

  async #drive(initial: CommitJournalEntry, request: OperationRequest): Promise<ExecutionOutcome> {
    let entry = initial;
    let mutated = false;
    let recovered = false;
    // The target proved a commit this journal did not know of: it catches up, nothing is written.
    let adopted = false;
    let attemptedMutation = false;
    const run: FenceRun = { installedEpoch: null, answer: null, refusal: null };
    for (let step = 0; step < MAX_STEPS; step++) {
      switch (entry.state) {
        case 'COMPLETE': {
          const status = mutated
            ? 'committed'
            : recovered && !adopted
              ? 'completed-after-recovery'
              : 'already-complete';
          return this.#outcome(entry, status, mutated);
        }
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
        case 'COMMITTING': {
          recovered = true;
          // Raise the fence's epoch first (zombies of older epochs are then refused), never create it.
          const fenced = await this.#fenceUnderLease(entry, request, run, false);
          entry = (await this.#reconcile(fenced.entry, request, null)).entry;
          break;
        }
        case 'FAILED_PRE_COMMIT':
          entry = await this.#cas(
            await this.#lease(entry, request),
            request,
            ['FAILED_PRE_COMMIT'],
            'PREPARING',
            { reason: 'retry:after-pre-commit-failure' },
          );
          break;
        case 'PREPARING': {
          // The only step that may create the fence.
          const fenced = await this.#fenceUnderLease(entry, request, run, true);
          if (fenced.answer.status === 'committed') {
            adopted = true;
            entry = await this.#adopt(fenced, request);
            break;
          }
          entry = await this.#cas(fenced.entry, request, ['PREPARING'], 'PREPARED', {
            reason: 'fence:prepared',
            fence_epoch: fenced.entry.lease?.epoch,
          });
          break;
        }
        case 'PREPARED': {
          if (attemptedMutation) {
            // The fence proved our mutation did not land. Stop here: the next attempt takes a new
            // epoch, which also fences any of our statements still in flight on the server. When
            // the target named a cause a retry cannot fix, that cause is the outcome.
            if (run.refusal) throw run.refusal;
            throw new DponeError(
              ERROR_CODES.PRE_COMMIT_FAILED,
              'the target proved the mutation did not land; an ordinary retry is safe',
              safe(entry),
            );
          }
          if (run.installedEpoch === null) {
            // Resuming at PREPARED: the fence must be there. Look before taking the lease, so a
            // missing fence stops the run without a single journal change.
            const seen = await this.#deps.target.queryFence(request.operationId);
            if (seen.epoch === null) throw fenceMissing(entry, request.metadata.fence_location);
          }
          const fenced = await this.#fenceUnderLease(entry, request, run, false);
          if (fenced.answer.epoch === null) throw fenceMissing(fenced.entry, request.metadata.fence_location);
          if (fenced.answer.status === 'committed') {
            adopted = true;
            entry = await this.#adopt(fenced, request);
            break;
          }
          attemptedMutation = true;
          const committed = await this.#commit(fenced.entry, request, run);
          entry = committed.entry;
          mutated = committed.mutated;
          adopted ||= committed.adopted;
          break;
        }
      }
    }
    throw new DponeError(ERROR_CODES.INTERNAL, 'executor did not converge', safe(entry));
  }

  /**
   * Holds the lease and has the target fence hold its epoch, then answers what the fence says.
   * Whether the epoch is installed is tracked per execution, not inferred from the journal: a
   * process that crashed between acquiring the lease and preparing the fence may come back under
   * the same holder name and the same (renewed) epoch, and must still install it. When the fence
   * has seen an epoch this journal never gave us (a reset, restored or forked journal; an equal
   * epoch of another holder), the lease moves above it with compare-and-set on the version we
   * read (a journal that moved on means we lost: CAS_CONFLICT) and the fence is prepared again.
   */
  async #fenceUnderLease(
    entry: CommitJournalEntry,
    request: OperationRequest,
    run: FenceRun,
    create: boolean,
  ): Promise<Fenced> {
    let leased = await this.#lease(entry, request);
    for (let round = 1; ; round++) {
      const epoch = leased.lease?.epoch ?? 0;
      if (run.installedEpoch === epoch && run.answer !== null) return { entry: leased, answer: run.answer };
      await this.#deps.faults.hit('fence.prepare:before');
      let answer: FenceEvidence;
      try {
        answer = await this.#deps.target.prepareFence(this.#fenceRef(request, epoch), { create });
      } catch (error) {
        throw await this.#refusedBeforeMutation(leased, request, error);
      }
      await this.#deps.faults.hit('fence.prepare:after');
      assertSameIntent(answer, request.intentDigest, leased);
      if (answer.installed) {
        run.installedEpoch = epoch;
        run.answer = answer;
        return { entry: leased, answer };
      }
      // Missing (never created here) or already committed: nothing to install, the caller decides.
      if (answer.epoch === null || answer.status === 'committed') return { entry: leased, answer };
      if (round >= MAX_FENCE_ROUNDS) {
        throw new DponeError(
          ERROR_CODES.FENCED,
          `the target fence holds epoch ${answer.epoch}, at or above this lease's ${epoch}, and kept moving`,
          safe(leased),
        );
      }
      leased = await this.#acquire(leased, request, answer.epoch + 1);
    }
  }

  /**
   * The target refused before any mutation (PREPARING/PREPARED) for a cause a retry cannot fix:
   * record FAILED_PRE_COMMIT and release the lease, so the run after the fix need not wait for
   * it to expire. The refusal stays the outcome, also if the journal cannot record it.
   */
  async #refusedBeforeMutation(
    entry: CommitJournalEntry,
    request: OperationRequest,
    error: unknown,
  ): Promise<unknown> {
    const refusal = permanent(error);
    if (!refusal || (entry.state !== 'PREPARING' && entry.state !== 'PREPARED')) return error;
    await this.#cas(
      entry,
      request,
      [entry.state],
      'FAILED_PRE_COMMIT',
      { reason: 'target:refused', error_code: refusal.code },
      true,
    ).catch(() => undefined);
    return refusal;
  }

  #fenceRef(request: OperationRequest, epoch: number): FenceRef {
    return {
      operationId: request.operationId,
      epoch,
      intentDigest: request.intentDigest,
      holder: request.holder,
    };
  }

  async #lease(entry: CommitJournalEntry, request: OperationRequest): Promise<CommitJournalEntry> {
    // Holding the lease by name is enough for this execution, even past its expiry: expiry only
    // lets another executor take over, and a takeover bumps the version (our next CAS loses) and
    // the fence epoch (our mutation is refused). Not renewing keeps each run's fault-point trace
    // independent of timing, so the harness can replay it point for point.
    if (entry.lease?.holder === request.holder) return entry;
    return this.#acquire(entry, request);
  }

  async #acquire(
    entry: CommitJournalEntry,
    request: OperationRequest,
    minEpoch?: number,
  ): Promise<CommitJournalEntry> {
    await this.#deps.faults.hit('lease.acquire:before');
    const leased = await this.#call(
      () =>
        this.#deps.journal.acquireLease({
          operationId: request.operationId,
          expectedVersion: entry.version,
          holder: request.holder,
          ttlMs: request.leaseTtlMs,
          nowMs: this.#deps.clock.nowMs(),
          ...(minEpoch === undefined ? {} : { minEpoch }),
        }),
      request,
    );
    await this.#deps.faults.hit('lease.acquire:after');
    return leased;
  }

  /**
   * The fence proves this operation committed, but the journal (PREPARING or PREPARED) did not
   * know: it was lost, reset, restored from an older copy or forked. Nothing is written; the
   * journal catches up through legal transitions, each with the fence's proof, to TARGET_COMMITTED.
   */
  async #adopt(fenced: Fenced, request: OperationRequest): Promise<CommitJournalEntry> {
    const evidence = adoptionEvidence(fenced.answer);
    let entry = fenced.entry;
    if (entry.state === 'PREPARING')
      entry = await this.#cas(entry, request, ['PREPARING'], 'PREPARED', evidence);
    entry = await this.#cas(entry, request, ['PREPARED'], 'COMMITTING', evidence);
    return this.#cas(entry, request, ['COMMITTING'], 'TARGET_COMMITTED', evidence, false, {
      rows_written: fenced.answer.rowsWritten ?? 0,
      fence_epoch: fenced.answer.committedEpoch ?? fenced.answer.epoch ?? 0,
      target_identity: request.metadata.target_identity,
    });
  }

  /** PREPARED -> COMMITTING -> mutate -> prove with the fence. */
  async #commit(
    entry: CommitJournalEntry,
    request: OperationRequest,
    run: FenceRun,
  ): Promise<{ entry: CommitJournalEntry; mutated: boolean; adopted: boolean }> {
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
        { reason: 'source:read-failed', error_code: ERROR_CODES.PRE_COMMIT_FAILED },
        true,
      );
      const refusal = permanent(error);
      if (refusal) throw refusal;
      throw new DponeError(
        ERROR_CODES.PRE_COMMIT_FAILED,
        'source read failed before any target mutation',
        safe(entry),
        { cause: error },
      );
    }
    await faults.hit('source.read:after');
    const committing = await this.#cas(entry, request, ['PREPARED'], 'COMMITTING', {
      reason: 'mutation:begin',
      fence_epoch: epoch,
    });
    let receipt: MutationReceipt | null = null;
    try {
      receipt = await target.mutate({
        fence: this.#fenceRef(request, epoch),
        strategy: request.strategy,
        partitionColumn: request.partitionColumn,
        partitionValue: request.partitionValue,
        batch,
      });
    } catch (error) {
      // A newer epoch owns the fence (this executor is a zombie), or the fence belongs to another
      // intent: nothing was written, and this executor writes nothing more.
      if (isDponeError(error, ERROR_CODES.FENCED) || isDponeError(error, ERROR_CODES.INTENT_CONFLICT)) {
        throw error;
      }
      // Anything else does not prove rollback: only the fence decides. A cause it named is
      // reported only if the fence then proves nothing landed (see PREPARED above).
      run.refusal = permanent(error);
    }
    await faults.hit('target.mutate:after');
    return this.#reconcile(committing, request, receipt);
  }

  /** Asks the fence and moves the journal only on proof. */
  async #reconcile(
    entry: CommitJournalEntry,
    request: OperationRequest,
    receipt: MutationReceipt | null,
  ): Promise<{ entry: CommitJournalEntry; mutated: boolean; adopted: boolean }> {
    await this.#deps.faults.hit('fence.query:before');
    const reported: FenceAnswer = await this.#deps.target.queryFence(request.operationId);
    // Spec: without a certified capability, COMMITTING after process loss becomes COMMIT_UNKNOWN.
    const answer: FenceAnswer =
      this.#deps.target.capability === 'none' ? { ...reported, status: 'unknown' } : reported;
    await this.#deps.faults.hit('fence.query:after');
    assertSameIntent(answer, request.intentDigest, entry);
    const decided = reconcileFence(answer, receipt);
    const adopted = decided.status === 'committed' && !decided.mutated;
    if (decided.status === 'committed') {
      const committed = await this.#cas(
        entry,
        request,
        ['COMMITTING'],
        'TARGET_COMMITTED',
        decided.evidence,
        false,
        {
          rows_written: answer.rowsWritten ?? 0,
          fence_epoch: answer.committedEpoch ?? answer.epoch ?? 0,
          target_identity: request.metadata.target_identity,
        },
      );
      return { entry: committed, mutated: decided.mutated, adopted };
    }
    if (decided.status === 'not-committed') {
      const prepared = await this.#cas(entry, request, ['COMMITTING'], 'PREPARED', decided.evidence, true);
      return { entry: prepared, mutated: false, adopted: false };
    }
    const unknown = await this.#cas(entry, request, ['COMMITTING'], 'COMMIT_UNKNOWN', decided.evidence, true);
    throw new DponeError(
      ERROR_CODES.COMMIT_UNKNOWN,
      decided.evidence.reason === 'fence:missing'
        ? 'the target holds no fence for this operation where the journal says it was prepared; explicit reconciliation is required'
        : 'the target could not prove whether the operation committed; explicit reconciliation is required',
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
