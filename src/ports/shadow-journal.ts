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
  /** Safe location of the journal (a file path or `postgres:host/db`), for messages. */
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

/** A stored attempt as either adapter reads it back: one column per field, snake_case. */
export type ShadowAttemptRow = Readonly<Record<string, string | number | bigint | null>>;

/** The table every shadow journal keeps its attempts in (one per journal database or file). */
export const SHADOW_TABLE = 'dpone_shadow_attempts';

/** The shadow table's columns between its key and `rows_written`, the same on every store. */
export const SHADOW_COLUMNS = `
  operation_id TEXT NOT NULL,
  intent_digest TEXT NOT NULL,
  workload_id TEXT NOT NULL,
  route TEXT NOT NULL,
  target_identity TEXT NOT NULL,
  partition_column TEXT NOT NULL,
  partition_value TEXT NOT NULL,
  holder TEXT NOT NULL,
  policy_digest TEXT NOT NULL,
  try_number INTEGER NOT NULL,
  would_decide TEXT NOT NULL,
  started_at TEXT NOT NULL,
  ended_at TEXT,
  outcome TEXT,`;

/** An attempt from its stored row (the same columns in SQLite and PostgreSQL). */
export function shadowAttemptOf(row: ShadowAttemptRow): ShadowAttempt {
  const text = (key: string) => String(row[key]);
  const optional = (key: string) => (row[key] === null ? null : String(row[key]));
  return {
    attemptId: Number(row.attempt_id),
    operationId: text('operation_id'),
    intentDigest: text('intent_digest'),
    workloadId: text('workload_id'),
    route: text('route'),
    targetIdentity: text('target_identity'),
    partitionColumn: text('partition_column'),
    partitionValue: text('partition_value'),
    holder: text('holder'),
    policyDigest: text('policy_digest'),
    tryNumber: Number(row.try_number),
    wouldDecide: text('would_decide'),
    startedAt: text('started_at'),
    endedAt: optional('ended_at'),
    outcome: optional('outcome') as ShadowOutcome | null,
    rowsWritten: row.rows_written === null ? null : Number(row.rows_written),
  };
}

/** The values of a new attempt's row, in the order of SHADOW_INSERT_COLUMNS. */
export const SHADOW_INSERT_COLUMNS =
  'operation_id, intent_digest, workload_id, route, target_identity, partition_column, partition_value, holder, policy_digest, try_number, would_decide, started_at';

export function shadowInsertValues(start: ShadowAttemptStart, tryNumber: number, wouldDecide: string) {
  return [
    start.operationId,
    start.intentDigest,
    start.workloadId,
    start.route,
    start.targetIdentity,
    start.partitionColumn,
    start.partitionValue,
    start.holder,
    start.policyDigest,
    tryNumber,
    wouldDecide,
    start.startedAt,
  ] as const;
}
