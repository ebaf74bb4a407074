import { DponeError, ERROR_CODES, isDponeError } from '../contracts/errors.ts';
import type { CommitJournalEntry } from '../contracts/journal.ts';
import type { ExecutionOutcome, ExecutorDeps, OperationRequest } from './executor-types.ts';
import { confirmComplete } from './complete-check.ts';
import { assertSameFenceLocation, fenceMissing, safe } from './fence-decision.ts';
import { FenceSteps } from './fence-steps.ts';
import { JournalSteps } from './journal-steps.ts';
import { differingIntentFields } from '../contracts/identity.ts';
import { leaseLive } from '../contracts/lease-clock.ts';
import { refusalCause, withEntry } from './non-retry-cause.ts';
import { releaseBeforeMutation } from './pre-mutation-release.ts';

export type { ExecutionOutcome, ExecutorDeps, OperationRequest } from './executor-types.ts';

const MAX_STEPS = 16;

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
    const { faults, journal, clock } = this.#deps;
    const steps = new JournalSteps(this.#deps, request);
    await faults.hit('journal.read:before');
    let entry = await steps.call(() => journal.get(request.operationId));
    if (entry === null) {
      await faults.hit('journal.create:before');
      const created = await steps.call(() =>
        journal.createIntent({
          operationId: request.operationId,
          intentDigest: request.intentDigest,
          metadata: request.metadata,
          nowMs: clock.nowMs(),
          // The first lease rides on the create: one journal commit fewer per operation.
          lease: {
            holder: request.holder,
            ttlMs: request.leaseTtlMs,
            // Which deployment policy governed this attempt, on its lease record too.
            ...(request.metadata.deployment_policy_digest
              ? { policyDigest: request.metadata.deployment_policy_digest }
              : {}),
          },
        }),
      );
      entry = created.entry;
      await faults.hit('journal.create:after');
    }
    if (this.#deps.flaws?.ioBeforeIntentCheck) {
      // Unsafe variants only: the source is read (its first chunk) before the intent is checked.
      const prefetch = this.#prefetch(request);
      await (this.#deps.flaws.quietPrefetch ? prefetch.catch(() => undefined) : prefetch);
    }
    if (entry.intent_digest !== request.intentDigest) throw intentConflict(entry, request);
    assertSameFenceLocation(entry, request.metadata.fence_location);
    const fence = new FenceSteps(this.#deps, request, steps);
    try {
      return await this.#drive(entry, request, steps, fence);
    } catch (error) {
      if (fence.ownCommitEpoch !== null && isDponeError(error, ERROR_CODES.CAS_CONFLICT)) {
        return this.#landedButTakenOver(request, fence.ownCommitEpoch, error);
      }
      // A failure before any mutation hands the lease back, so a retry need not wait for its expiry.
      await releaseBeforeMutation(
        this.#deps.journal,
        this.#deps.clock,
        request,
        error,
        !fence.mutationAttempted,
      );
      throw error;
    }
  }

  /**
   * This attempt's write is the one the fence proves committed, but another executor moved the
   * journal before this one could record it (it took the lease over, e.g. judging it expired by
   * its own clock). Never "another executor won" (13): the commit is ours. The journal is read
   * again: COMPLETE (the other executor recorded our commit) is success; a journal no live lease
   * holds is driven on once more, which records the commit from the fence without writing; a
   * journal another executor holds gets DPONE_TARGET_COMMITTED_UNRECORDED (15), and that executor,
   * or a retry, records it.
   */
  async #landedButTakenOver(
    request: OperationRequest,
    epoch: number,
    lost: unknown,
  ): Promise<ExecutionOutcome> {
    const { journal, clock } = this.#deps;
    const current = await journal.get(request.operationId).catch(() => null);
    if (current?.state === 'COMPLETE') return outcome(current, 'committed', true);
    const held = current?.lease;
    const free =
      held === null ||
      held === undefined ||
      held.holder === request.holder ||
      !leaseLive(held, clock.nowMs());
    if (current !== null && free) {
      try {
        const steps = new JournalSteps(this.#deps, request);
        const settled = await this.#drive(
          current,
          request,
          steps,
          new FenceSteps(this.#deps, request, steps),
        );
        if (settled.state === 'COMPLETE' && settled.fenceEpoch === epoch)
          return { ...settled, status: 'committed', mutated: true };
        return settled;
      } catch (error) {
        if (!isDponeError(error, ERROR_CODES.CAS_CONFLICT)) throw error;
        lost = error;
      }
    }
    throw new DponeError(
      ERROR_CODES.COMMITTED_UNRECORDED,
      `this attempt's write committed (the target fence proves it at this attempt's epoch ${epoch}), but another ` +
        'executor took the journal over before this one recorded it; whoever holds the journal, or a retry, ' +
        'records it from the fence without writing again',
      current !== null ? safe(current) : { operationId: request.operationId },
      { cause: lost },
    );
  }

  /** Unsafe variants only: the source's first chunk, read before the intent is checked. */
  async #prefetch(request: OperationRequest): Promise<void> {
    await using rows = await this.#deps.source.read({
      partitionColumn: request.partitionColumn,
      partitionValue: request.partitionValue,
    });
    for await (const chunk of rows) if (chunk.length >= 0) break;
  }

  async #drive(
    initial: CommitJournalEntry,
    request: OperationRequest,
    journal: JournalSteps,
    fence: FenceSteps,
  ): Promise<ExecutionOutcome> {
    let entry = initial;
    let mutated = false;
    let recovered = false;
    // The target proved a commit this journal did not know of: it catches up, nothing is written.
    let adopted = false;
    let attemptedMutation = false;
    for (let step = 0; step < MAX_STEPS; step++) {
      switch (entry.state) {
        case 'COMPLETE': {
          // Found complete, not made so by this run: the target must still hold the commit.
          if (step === 0) await confirmComplete(entry, this.#deps, request);
          const status = mutated
            ? 'committed'
            : recovered && !adopted
              ? 'completed-after-recovery'
              : 'already-complete';
          return outcome(entry, status, mutated);
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
          entry = await journal.complete(await journal.lease(entry));
          break;
        case 'COMMITTING': {
          recovered = true;
          // Raise the fence's epoch first (zombies of older epochs are then refused), never create it.
          const fenced = await fence.underLease(entry, false);
          entry = (await fence.reconcile(fenced.entry, null)).entry;
          break;
        }
        case 'FAILED_PRE_COMMIT':
          entry = await journal.cas(await journal.lease(entry), ['FAILED_PRE_COMMIT'], 'PREPARING', {
            reason: 'retry:after-pre-commit-failure',
          });
          break;
        case 'PREPARING': {
          // The only step that may create the fence.
          const fenced = await fence.underLease(entry, true);
          if (fenced.answer.status === 'committed') {
            adopted = true;
            entry = await fence.adopt(fenced);
            break;
          }
          entry = await journal.cas(fenced.entry, ['PREPARING'], 'PREPARED', {
            reason: 'fence:prepared',
            fence_epoch: fenced.entry.lease?.epoch,
          });
          break;
        }
        case 'PREPARED': {
          if (attemptedMutation) {
            // The fence proved our mutation did not land. Stop here: the next attempt takes a new
            // epoch, which also fences any of our statements still in flight on the server. Only
            // now, with that proof, may the target's own refusal (privilege, data) decide the code.
            const cause = refusalCause(fence.mutationError);
            if (cause) throw withEntry(cause, entry, 'the fence proved nothing landed');
            throw new DponeError(
              ERROR_CODES.PRE_COMMIT_FAILED,
              'the target proved the mutation did not land; an ordinary retry is safe',
              safe(entry),
            );
          }
          // Resuming at PREPARED: the fence must be there. Look before taking the lease, so a
          // missing fence stops the run without a single journal change. A target without a
          // fence capability has none to look for: it writes, and only an operator can settle it.
          const fenceless = this.#deps.target.capability === 'none';
          if (!fenceless && !fence.installed && (await fence.query()).epoch === null) {
            throw fenceMissing(entry, request.metadata.fence_location);
          }
          const fenced = await fence.underLease(entry, false);
          if (!fenceless && fenced.answer.epoch === null)
            throw fenceMissing(fenced.entry, request.metadata.fence_location);
          if (fenced.answer.status === 'committed') {
            adopted = true;
            entry = await fence.adopt(fenced);
            break;
          }
          attemptedMutation = true;
          fence.mutationAttempted = true;
          const settled = await fence.commit(fenced.entry);
          entry = settled.entry;
          mutated = settled.mutated;
          adopted ||= settled.adopted;
          break;
        }
      }
    }
    throw new DponeError(ERROR_CODES.INTERNAL, 'executor did not converge', safe(entry));
  }
}

/**
 * The journal holds another intent for this operation id: refused before any source or target
 * I/O, naming the fields that differ (from the per-field digests stored with the intent; an
 * entry written before them names none).
 */
function intentConflict(entry: CommitJournalEntry, request: OperationRequest): DponeError {
  const recorded = entry.metadata.intent_fields;
  const current = request.metadata.intent_fields;
  const fields = recorded && current ? differingIntentFields(recorded, current) : [];
  const which = fields.length > 0 ? `: ${fields.join(', ')} differ${fields.length === 1 ? 's' : ''}` : '';
  return new DponeError(
    ERROR_CODES.INTENT_CONFLICT,
    `operation id already has a journal intent with another intent digest${which}; refusing before any source or target I/O`,
    { ...safe(entry), ...(fields.length > 0 ? { field: fields[0] } : {}) },
  );
}

function outcome(
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
