import { DponeError, ERROR_CODES } from '../contracts/errors.ts';
import type { CommitJournalEntry } from '../contracts/journal.ts';
import type { FaultPointName } from '../contracts/fault-point-names.ts';
import { isStatementPoint } from '../ports/statement-points.ts';
import type { FaultPoints } from '../ports/fault-points.ts';
import type { TargetCommitJournalPort } from '../ports/journal.ts';

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;
type StopSignal = (typeof SIGNALS)[number];

/** Where a stop request may end the run at once: before any mutation, or without holding a lease. */
function stoppable(entry: CommitJournalEntry | null, holder: string): boolean {
  if (entry === null || entry.lease?.holder !== holder) return true;
  return entry.state === 'PREPARING' || entry.state === 'PREPARED';
}

/**
 * SIGINT/SIGTERM for `dpone run`, as fault points: the executor passes a named point before every
 * step, and the first signal makes the next `…:before` point (or `journal.read:before`) stop the
 * run with DPONE_INTERRUPTED (exit 130) — but only where that leaves nothing half done: before
 * COMMITTING, where the executor then hands its lease back. Once the journal says COMMITTING (the
 * target commit and its fence query) or later while this run holds the lease, it says so in one
 * line and carries on to the end of the run, so it never stops silently between the commit and
 * the fence's answer. A second signal exits at once (130), like a crash: the next run reconciles
 * with the target's fence, as after any SIGKILL.
 */
export class RunInterrupts implements FaultPoints, Disposable {
  readonly #inner: FaultPoints;
  readonly #stderr: NodeJS.WritableStream;
  readonly #operationId: string;
  readonly #holder: string;
  readonly #listeners = new Map<StopSignal, () => void>();
  #journal: TargetCommitJournalPort | null = null;
  #signal: StopSignal | null = null;
  #announced = false;

  constructor(
    inner: FaultPoints,
    stderr: NodeJS.WritableStream,
    operation: { operationId: string; holder: string },
  ) {
    this.#inner = inner;
    this.#stderr = stderr;
    this.#operationId = operation.operationId;
    this.#holder = operation.holder;
    for (const signal of SIGNALS) {
      const listener = () => this.#received(signal);
      this.#listeners.set(signal, listener);
      process.on(signal, listener);
    }
  }

  /** The journal the run opened: a stop request reads the entry to decide where it may stop. */
  attach(journal: TargetCommitJournalPort): void {
    this.#journal = journal;
  }

  /** The signal received, if any. */
  get signal(): StopSignal | null {
    return this.#signal;
  }

  /** Statement points are the inner plan's (they are never a place to stop at on a signal). */
  get statements(): boolean {
    return this.#inner.statements === true;
  }

  hit(point: FaultPointName): void | Promise<void> {
    const passed = this.#inner.hit(point);
    // A parked point (under a fault plan) is checked when it resumes: the signal may come meanwhile.
    if (passed instanceof Promise) return passed.then(() => this.#check(point));
    return this.#check(point);
  }

  #check(point: string): void | Promise<void> {
    if (this.#signal === null || !point.endsWith(':before') || isStatementPoint(point)) return;
    return this.#maybeStop(point);
  }

  async #maybeStop(point: string): Promise<void> {
    let entry: CommitJournalEntry | null = null;
    try {
      entry = (await this.#journal?.get(this.#operationId)) ?? null;
    } catch {
      // The journal cannot say: stopping now is what a crash here would do, and that is safe.
    }
    if (!stoppable(entry, this.#holder)) {
      if (!this.#announced) {
        this.#announced = true;
        this.#stderr.write(
          `dpone: ${this.#signal} received in ${entry!.state}: carrying on to the next point where stopping leaves nothing half done (a target commit is proved by its fence first); a second signal exits at once\n`,
        );
      }
      return;
    }
    throw new DponeError(
      ERROR_CODES.INTERRUPTED,
      `stopped by ${this.#signal} at ${point}: the target holds no mutation of this run; its lease is handed back`,
      {
        operationId: this.#operationId,
        ...(entry ? { state: entry.state, journalVersion: entry.version } : {}),
      },
    );
  }

  #received(signal: StopSignal): void {
    if (this.#signal !== null) {
      this.#stderr.write(
        `dpone: second ${signal}: exiting now; the next run asks the target's fence what landed, as after a crash\n`,
      );
      process.exit(130);
    }
    this.#signal = signal;
  }

  [Symbol.dispose](): void {
    for (const [signal, listener] of this.#listeners) process.off(signal, listener);
    this.#listeners.clear();
  }
}
