/**
 * The shadow journal (rollout mode `shadow`): a secondary record of every attempt of a plain
 * write, kept beside the protocol journal. It never decides anything: the write goes on whether
 * or not a record could be made. Stores safe identities only (never SQL, rows or credentials).
 */

/** How an attempt ended: `committed` (the plain write returned), `failed` (nothing can have been
 * written), `unknown` (the write began and its outcome cannot be known). An attempt with no end
 * recorded (its process died) counts as unknown. */
export type ShadowOutcome = 'committed' | 'failed' | 'unknown';

export interface ShadowAttemptStart {
  readonly operationId: string;
  readonly intentDigest: string;
  readonly workloadId: string;
  readonly route: string;
  readonly targetIdentity: string;
  readonly partitionColumn: string;
  readonly partitionValue: string;
  readonly holder: string;
  readonly policyDigest: string;
  /** ISO-8601 UTC. */
  readonly startedAt: string;
}

export interface ShadowAttempt extends ShadowAttemptStart {
  readonly attemptId: number;
  /** 1 for the operation's first attempt in this journal, then 2, … */
  readonly tryNumber: number;
  /** What enforced mode would have decided at this attempt (shadow-decision.ts). */
  readonly wouldDecide: string;
  readonly endedAt: string | null;
  readonly outcome: ShadowOutcome | null;
  readonly rowsWritten: number | null;
}

export interface ShadowJournal extends AsyncDisposable {
  /** Safe location of the journal (a file path or `<engine>:host/db`), for messages. */
  readonly location: string;
  /**
   * Records the start of an attempt atomically with reading the operation's earlier attempts,
   * from which `decide` says what enforcement would do now; resolves with the stored attempt.
   */
  begin(
    start: ShadowAttemptStart,
    decide: (prior: readonly ShadowAttempt[]) => string,
  ): Promise<ShadowAttempt>;
  /** Records how an attempt ended. */
  end(attemptId: number, outcome: ShadowOutcome, rowsWritten: number | null, endedAt: string): Promise<void>;
  /** Every attempt started at or after `since` (ISO-8601; null: all), oldest first. */
  attempts(since: string | null): Promise<readonly ShadowAttempt[]>;
  close(): Promise<void>;
}
