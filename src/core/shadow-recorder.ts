import type {
  ShadowAttempt,
  ShadowAttemptStart,
  ShadowJournal,
  ShadowOutcome,
} from '../ports/shadow-journal.ts';
import { wouldDecide } from './shadow-decision.ts';

/** Resolves with the promise's value, or rejects once `ms` have passed: whichever comes first. */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Shadow mode's recorder: every call to the shadow journal is bounded by `timeoutMs` and its
 * failure is only warned about. The legacy write it accompanies never waits longer, never fails
 * and never changes because of it (the journal is secondary). After one failure it stops trying,
 * so a dead journal costs the run one timeout at most.
 */
export class ShadowRecorder {
  readonly #journal: ShadowJournal | null;
  readonly #timeoutMs: number;
  readonly #warn: (line: string) => void;
  #broken = false;

  constructor(journal: ShadowJournal | null, timeoutMs: number, warn: (line: string) => void) {
    this.#journal = journal;
    this.#timeoutMs = timeoutMs;
    this.#warn = warn;
  }

  async begin(start: ShadowAttemptStart): Promise<ShadowAttempt | null> {
    return this.#call('record the attempt', (journal) =>
      journal.begin(start, (prior) => wouldDecide(start.intentDigest, prior)),
    );
  }

  async end(
    attempt: ShadowAttempt | null,
    outcome: ShadowOutcome,
    rowsWritten: number | null,
  ): Promise<void> {
    if (attempt === null) return;
    await this.#call('record the outcome', (journal) =>
      journal.end(attempt.attemptId, outcome, rowsWritten, new Date().toISOString()),
    );
  }

  async #call<T>(what: string, call: (journal: ShadowJournal) => Promise<T>): Promise<T | null> {
    if (this.#journal === null || this.#broken) return null;
    try {
      return await within(call(this.#journal), this.#timeoutMs, `shadow journal: ${what}`);
    } catch (error) {
      this.#broken = true;
      const why = error instanceof Error && /took longer/.test(error.message) ? 'timed out' : 'failed';
      this.#warn(
        `dpone: warning: the shadow journal (${this.#journal.location}) could not ${what} (${why}): the write goes on unrecorded`,
      );
      return null;
    }
  }
}
