import { DponeError, ERROR_CODES } from '../../../contracts/errors.ts';
import type { CommitJournalEntry, JournalHistoryRecord } from '../../../contracts/journal.ts';
import type { PlannedChange } from '../../../contracts/journal-rules.ts';
import {
  newIntent,
  planLeaseExpiry,
  planTransition,
  planTransitions,
} from '../../../contracts/journal-rules.ts';
import type { LeaseClock } from '../../../contracts/lease-clock.ts';
import type {
  CompareAndSetChainRequest,
  CompareAndSetRequest,
  CreateIntentRequest,
  CreateIntentResult,
  ExpireLeaseRequest,
  JournalWarn,
  LeaseRequest,
  TargetCommitJournalPort,
} from '../../../ports/journal.ts';
import { planLeaseWarning } from '../lease-warning.ts';

/**
 * In-memory journal for unit tests. Not durable: it lives and dies with the process, so it never
 * certifies anything. Legality comes from the shared journal rules, like every other adapter; each
 * write is synchronous between awaits, so concurrent callers in one process see one winner.
 */
export class MemoryJournal implements TargetCommitJournalPort {
  readonly leaseClock: LeaseClock = 'caller';
  readonly #warn: JournalWarn | undefined;
  readonly #entries = new Map<string, CommitJournalEntry>();
  readonly #history = new Map<string, JournalHistoryRecord[]>();
  #closed = false;

  constructor(options: { readonly warn?: JournalWarn } = {}) {
    this.#warn = options.warn;
  }

  async createIntent(request: CreateIntentRequest): Promise<CreateIntentResult> {
    this.#assertOpen(request.operationId);
    const existing = this.#entries.get(request.operationId);
    if (existing) return { entry: existing, created: false };
    const changes = newIntent(
      request.operationId,
      request.intentDigest,
      request.metadata,
      request.nowMs,
      request.lease,
    );
    for (const change of changes) this.#write(change);
    return { entry: changes[changes.length - 1]!.entry, created: true };
  }

  async compareAndSet(request: CompareAndSetRequest): Promise<CommitJournalEntry> {
    const current = this.#current(request.operationId);
    const planned = planTransition(current, request);
    this.#write(planned);
    return planned.entry;
  }

  async compareAndSetChain(request: CompareAndSetChainRequest): Promise<CommitJournalEntry> {
    const planned = planTransitions(this.#current(request.operationId), request);
    for (const change of planned) this.#write(change);
    return planned[planned.length - 1]!.entry;
  }

  async get(operationId: string): Promise<CommitJournalEntry | null> {
    this.#assertOpen(operationId);
    return this.#entries.get(operationId) ?? null;
  }

  async acquireLease(request: LeaseRequest): Promise<CommitJournalEntry> {
    const current = this.#current(request.operationId);
    const planned = planLeaseWarning(current, request, this.#warn);
    this.#write(planned);
    return planned.entry;
  }

  async expireLease(request: ExpireLeaseRequest): Promise<CommitJournalEntry> {
    const planned = planLeaseExpiry(this.#current(request.operationId), request);
    this.#write(planned);
    return planned.entry;
  }

  async history(operationId: string): Promise<readonly JournalHistoryRecord[]> {
    this.#assertOpen(operationId);
    return [...(this.#history.get(operationId) ?? [])];
  }

  async list(): Promise<readonly string[]> {
    this.#assertOpen();
    return [...this.#entries.keys()].sort();
  }

  async close(): Promise<void> {
    this.#closed = true;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #current(operationId: string): CommitJournalEntry {
    this.#assertOpen(operationId);
    const current = this.#entries.get(operationId);
    if (!current) {
      throw new DponeError(ERROR_CODES.CAS_CONFLICT, 'no journal entry exists for this operation', {
        operationId,
      });
    }
    return current;
  }

  #write(planned: PlannedChange): void {
    const id = planned.entry.operation_id;
    this.#entries.set(id, Object.freeze(planned.entry));
    const records = this.#history.get(id) ?? [];
    records.push(Object.freeze(planned.record));
    this.#history.set(id, records);
  }

  #assertOpen(operationId?: string): void {
    if (!this.#closed) return;
    throw new DponeError(
      ERROR_CODES.JOURNAL_UNAVAILABLE,
      'the in-memory journal is closed',
      operationId !== undefined ? { operationId } : {},
    );
  }
}
