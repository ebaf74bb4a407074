import type { ShadowAttempt, ShadowAttemptStart, ShadowOutcome } from '../../ports/shadow-journal.ts';

/**
 * What every shadow journal store shares (the engines' shadow journals in
 * connectors/<engine>/journal/), as journal-row.ts is for the protocol journal: the table, its
 * columns, and the decoding of a stored attempt. The port (src/ports/shadow-journal.ts) holds
 * only the interface.
 */

/** A stored attempt as a store reads it back: one column per field, snake_case. */
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

/** An attempt from its stored row (the same columns in every store). */
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

/** The attempt a store has just inserted as `attemptId`: begun, not yet ended. */
function begunAttempt(
  start: ShadowAttemptStart,
  attemptId: number,
  tryNumber: number,
  wouldDecide: string,
): ShadowAttempt {
  return { ...start, attemptId, tryNumber, wouldDecide, endedAt: null, outcome: null, rowsWritten: null };
}

/** The values of a new attempt's row, in the order of SHADOW_INSERT_COLUMNS. */
export const SHADOW_INSERT_COLUMNS =
  'operation_id, intent_digest, workload_id, route, target_identity, partition_column, partition_value, holder, policy_digest, try_number, would_decide, started_at';

function shadowInsertValues(start: ShadowAttemptStart, tryNumber: number, wouldDecide: string) {
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

/**
 * An operation's next attempt after its `prior` rows (in attempt order, read in the transaction
 * that inserts it): numbered one past them, with what the protocol would decide from them; its
 * row's `values` (SHADOW_INSERT_COLUMNS) and, once inserted, the attempt `begun` under its id.
 */
export function nextShadowAttempt(
  start: ShadowAttemptStart,
  prior: readonly ShadowAttemptRow[],
  decide: (prior: readonly ShadowAttempt[]) => string,
): { readonly values: ReturnType<typeof shadowInsertValues>; begun(attemptId: number): ShadowAttempt } {
  const attempts = prior.map(shadowAttemptOf);
  const tryNumber = attempts.length + 1;
  const wouldDecide = decide(attempts);
  return {
    values: shadowInsertValues(start, tryNumber, wouldDecide),
    begun: (attemptId) => begunAttempt(start, attemptId, tryNumber, wouldDecide),
  };
}
