import { DponeError, ERROR_CODES, isDponeError } from '../contracts/errors.ts';
import type { CommitJournalEntry } from '../contracts/journal.ts';
import type { FenceAnswer, FenceRef, MutationReceipt } from '../ports/connector.ts';
import type { ExecutorDeps, Fenced, OperationRequest, Settled } from './executor-types.ts';
import type { Reconciliation } from './fence-decision.ts';
import {
  NO_FENCE_CAPABILITY,
  adoptionEvidence,
  assertSameIntent,
  reconcileFence,
  safe,
} from './fence-decision.ts';
import type { JournalSteps } from './journal-steps.ts';
import { nonRetryCause, withEntry } from './non-retry-cause.ts';

/** How often one step may move its lease above a fence that has seen newer epochs. */
const MAX_FENCE_ROUNDS = 3;

/**
 * One execution's dealings with the target fence: install the lease epoch, act on what the fence
 * answers, mutate under it, and move the journal only on the fence's proof. Remembers the epoch
 * this execution installed (not inferred from the journal: a process that crashed between
 * acquiring the lease and preparing the fence may come back under the same holder name and the
 * same renewed epoch, and must still install it).
 */
export class FenceSteps {
  readonly #deps: ExecutorDeps;
  readonly #request: OperationRequest;
  readonly #journal: JournalSteps;
  #installedEpoch: number | null = null;
  #installedAnswer: FenceAnswer | null = null;
  /** The target's error from the last mutation call; it decides nothing until the fence has answered. */
  mutationError: unknown = null;
  /**
   * The epoch at which the fence proved THIS attempt's write committed (its guard matched and the
   * committed epoch is its own), or null. Set before the journal is told, so a journal race lost
   * afterwards is still reported as this attempt's commit (DPONE_TARGET_COMMITTED_UNRECORDED).
   */
  ownCommitEpoch: number | null = null;
  /** Whether this execution began a mutation of its own (from then on only the fence decides). */
  mutationAttempted = false;

  constructor(deps: ExecutorDeps, request: OperationRequest, journal: JournalSteps) {
    this.#deps = deps;
    this.#request = request;
    this.#journal = journal;
  }

  /** Whether this execution has installed its epoch in the fence. */
  get installed(): boolean {
    return this.#installedEpoch !== null;
  }

  /** The fence as it is now, read-only (no lease needed, nothing written). */
  query(): Promise<FenceAnswer> {
    return this.#deps.target.queryFence(this.#request.operationId);
  }

  /**
   * Holds the lease and has the target fence hold its epoch (creating the fence only with
   * `create`), then answers what the fence says. When the fence has seen an epoch this journal
   * never gave us (a reset, restored or forked journal; an equal epoch of another holder), the
   * lease moves above it with compare-and-set on the version we read (a journal that moved on
   * means we lost: CAS_CONFLICT) and the fence is prepared again.
   */
  async underLease(entry: CommitJournalEntry, create: boolean): Promise<Fenced> {
    const { faults, target } = this.#deps;
    let leased = await this.#journal.lease(entry);
    for (let round = 1; ; round++) {
      const epoch = leased.lease?.epoch ?? 0;
      if (this.#installedEpoch === epoch && this.#installedAnswer !== null) {
        return { entry: leased, answer: this.#installedAnswer };
      }
      await faults.hit('fence.prepare:before');
      const answer = await target.prepareFence(this.#ref(epoch), { create });
      await faults.hit('fence.prepare:after');
      assertSameIntent(answer, this.#request.intentDigest, leased);
      if (answer.installed) {
        this.#installedEpoch = epoch;
        this.#installedAnswer = answer;
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
      leased = await this.#journal.acquire(leased, answer.epoch + 1);
    }
  }

  /**
   * The fence proves this operation committed, but the journal (PREPARING or PREPARED) did not
   * know: it was lost, reset, restored from an older copy or forked. Nothing is written; the
   * journal catches up through legal transitions, each with the fence's proof, to TARGET_COMMITTED.
   */
  async adopt(fenced: Fenced): Promise<CommitJournalEntry> {
    const evidence = adoptionEvidence(fenced.answer);
    let entry = fenced.entry;
    if (entry.state === 'PREPARING')
      entry = await this.#journal.cas(entry, ['PREPARING'], 'PREPARED', evidence);
    entry = await this.#journal.cas(entry, ['PREPARED'], 'COMMITTING', evidence);
    return this.#journal.cas(
      entry,
      ['COMMITTING'],
      'TARGET_COMMITTED',
      evidence,
      false,
      this.#result(fenced.answer),
    );
  }

  /** PREPARED -> COMMITTING -> mutate -> prove with the fence. */
  async commit(entry: CommitJournalEntry): Promise<Settled> {
    const { faults, source, target } = this.#deps;
    const request = this.#request;
    const epoch = entry.lease?.epoch ?? 0;
    await faults.hit('source.read:before');
    let rows;
    try {
      rows = await source.read({
        partitionColumn: request.partitionColumn,
        partitionValue: request.partitionValue,
      });
    } catch (error) {
      // A cause no retry fixes (privilege, missing object, bad partition value) keeps its code.
      const cause = nonRetryCause(error);
      await this.#journal.cas(
        entry,
        ['PREPARED'],
        'FAILED_PRE_COMMIT',
        { reason: 'source:read-failed', error_code: cause?.code ?? ERROR_CODES.PRE_COMMIT_FAILED },
        true,
      );
      if (cause) throw withEntry(cause, entry, 'nothing was written');
      throw new DponeError(
        ERROR_CODES.PRE_COMMIT_FAILED,
        'source read failed before any target mutation',
        safe(entry),
        {
          cause: error,
        },
      );
    }
    let receipt: MutationReceipt | null = null;
    let committing: CommitJournalEntry;
    // The read is open (its first rows may be in hand); the target streams the rest inside its
    // guarded transaction. The read is closed before the fence is asked, whatever happened.
    try {
      await faults.hit('source.read:after');
      committing = await this.#journal.cas(entry, ['PREPARED'], 'COMMITTING', {
        reason: 'mutation:begin',
        fence_epoch: epoch,
      });
      try {
        receipt = await target.mutate({
          fence: this.#ref(epoch),
          strategy: request.strategy,
          partitionColumn: request.partitionColumn,
          partitionValue: request.partitionValue,
          rows,
        });
      } catch (error) {
        // A newer epoch owns the fence (this executor is a zombie), or the fence belongs to another
        // intent: nothing was written, and this executor writes nothing more.
        if (isDponeError(error, ERROR_CODES.FENCED) || isDponeError(error, ERROR_CODES.INTENT_CONFLICT))
          throw error;
        // Anything else (a source that failed mid-read too) does not prove rollback: only the fence decides.
        this.mutationError = error;
      }
    } finally {
      // Closing the read is secondary: its failure never replaces the mutation's outcome.
      await rows.close().catch(() => undefined);
    }
    await faults.hit('target.mutate:after');
    return this.reconcile(committing, receipt);
  }

  /** Asks the fence and moves the journal (COMMITTING) only on proof. */
  async reconcile(entry: CommitJournalEntry, receipt: MutationReceipt | null): Promise<Settled> {
    const { faults, target } = this.#deps;
    await faults.hit('fence.query:before');
    const reported = await this.query();
    // Spec: without a certified capability, COMMITTING after process loss becomes COMMIT_UNKNOWN.
    const answer: FenceAnswer = target.capability === 'none' ? { ...reported, status: 'unknown' } : reported;
    await faults.hit('fence.query:after');
    assertSameIntent(answer, this.#request.intentDigest, entry);
    // Without a fence capability nothing can prove the outcome: say so, not "the fence is missing".
    const honest = reconcileFence(answer, receipt, target.capability === 'none');
    // Unsafe variant only: an outcome the target cannot prove is taken for "not committed".
    const decided: Reconciliation =
      this.#deps.flaws?.replayUnknown && honest.status === 'unknown'
        ? {
            ...honest,
            status: 'not-committed',
            evidence: { ...honest.evidence, fence_status: 'not-committed' },
          }
        : honest;
    if (decided.status === 'committed') {
      if (decided.mutated) this.ownCommitEpoch = answer.committedEpoch;
      const committed = await this.#journal.cas(
        entry,
        ['COMMITTING'],
        'TARGET_COMMITTED',
        decided.evidence,
        false,
        this.#result(answer),
      );
      return { entry: committed, mutated: decided.mutated, adopted: !decided.mutated };
    }
    if (decided.status === 'not-committed') {
      const prepared = await this.#journal.cas(entry, ['COMMITTING'], 'PREPARED', decided.evidence, true);
      return { entry: prepared, mutated: false, adopted: false };
    }
    const unknown = await this.#journal.cas(entry, ['COMMITTING'], 'COMMIT_UNKNOWN', decided.evidence, true);
    throw new DponeError(
      ERROR_CODES.COMMIT_UNKNOWN,
      decided.evidence.reason === 'fence:missing'
        ? 'the target holds no fence for this operation where the journal says it was prepared; explicit reconciliation is required'
        : decided.evidence.reason === NO_FENCE_CAPABILITY
          ? 'the target has no fence capability, so it cannot prove whether the operation committed; explicit reconciliation is required (dpone recovery target-commit)'
          : 'the target could not prove whether the operation committed; explicit reconciliation is required',
      safe(unknown),
    );
  }

  #ref(epoch: number): FenceRef {
    const { operationId, intentDigest, holder } = this.#request;
    return { operationId, epoch, intentDigest, holder };
  }

  #result(answer: FenceAnswer): NonNullable<CommitJournalEntry['result']> {
    return {
      rows_written: answer.rowsWritten ?? 0,
      fence_epoch: answer.committedEpoch ?? answer.epoch ?? 0,
      target_identity: this.#request.metadata.target_identity,
    };
  }
}
