import type { ShadowAttempt } from '../ports/shadow-journal.ts';

/** Version of `dpone shadow report --json` (schemas/shadow-report.v1.json). */
export const SHADOW_REPORT_SCHEMA = 'dpone.shadow-report/v1';

export interface ReportedAttempt {
  readonly try: number;
  readonly holder: string;
  readonly started_at: string;
  readonly ended_at: string | null;
  /** `unfinished`: no end was recorded (the process died, or it is still running). */
  readonly outcome: 'committed' | 'failed' | 'unknown' | 'unfinished';
  readonly rows_written: number | null;
  readonly would_decide: string;
  readonly policy_digest: string;
}

export interface ReportedOperation {
  readonly operation_id: string;
  readonly workload_id: string;
  readonly route: string;
  readonly target_identity: string;
  readonly partition: string;
  readonly intent_digests: readonly string[];
  /** Attempts whose plain write returned: more than one is a duplicate enforcement would have refused. */
  readonly writes: number;
  readonly attempts: readonly ReportedAttempt[];
}

export interface ShadowReport {
  readonly schema: typeof SHADOW_REPORT_SCHEMA;
  readonly journal: string;
  readonly since: string | null;
  readonly totals: {
    readonly operations: number;
    readonly attempts: number;
    readonly duplicate_operations: number;
    /** Writes beyond each operation's first: the extra target mutations enforcement would have prevented. */
    readonly duplicate_writes: number;
    /** Operations that may have been written more than once: the unknown attempts decide it. */
    readonly possible_duplicate_operations: number;
    readonly unknown_outcomes: number;
    readonly identity_collisions: number;
    readonly shared_partitions: number;
  };
  /** Operations written more than once. */
  readonly duplicates: readonly ReportedOperation[];
  /**
   * Operations not certainly written twice, but whose writes plus unknown attempts are two or more:
   * an attempt killed after its commit and before its end was recorded looks unknown here; only the
   * target's rows can settle it.
   */
  readonly possible_duplicates: readonly ReportedOperation[];
  /** Operations with an attempt whose outcome is unknown or never recorded. */
  readonly unknown: readonly ReportedOperation[];
  /** Operations that saw two different intents under one operation id. */
  readonly identity_collisions: readonly ReportedOperation[];
  /** Target partitions written by more than one operation. */
  readonly shared_partitions: readonly {
    readonly target_identity: string;
    readonly partition: string;
    readonly operation_ids: readonly string[];
  }[];
}

function reported(attempt: ShadowAttempt): ReportedAttempt {
  return {
    try: attempt.tryNumber,
    holder: attempt.holder,
    started_at: attempt.startedAt,
    ended_at: attempt.endedAt,
    outcome: attempt.outcome ?? 'unfinished',
    rows_written: attempt.rowsWritten,
    would_decide: attempt.wouldDecide,
    policy_digest: attempt.policyDigest,
  };
}

const partitionOf = (attempt: ShadowAttempt) => `${attempt.partitionColumn}=${attempt.partitionValue}`;

/** The numbers a team reads before enabling enforcement, from the shadow journal's attempts. */
export function shadowReport(
  attempts: readonly ShadowAttempt[],
  journal: string,
  since: string | null,
): ShadowReport {
  const byOperation = new Map<string, ShadowAttempt[]>();
  for (const attempt of attempts) {
    const list = byOperation.get(attempt.operationId) ?? [];
    list.push(attempt);
    byOperation.set(attempt.operationId, list);
  }
  const operations: ReportedOperation[] = [...byOperation.values()].map((list) => {
    const first = list[0]!;
    return {
      operation_id: first.operationId,
      workload_id: first.workloadId,
      route: first.route,
      target_identity: first.targetIdentity,
      partition: partitionOf(first),
      intent_digests: [...new Set(list.map((attempt) => attempt.intentDigest))],
      writes: list.filter((attempt) => attempt.outcome === 'committed').length,
      attempts: list.map(reported),
    };
  });
  const duplicates = operations.filter((operation) => operation.writes > 1);
  const unknown = operations.filter((operation) =>
    operation.attempts.some((attempt) => attempt.outcome === 'unknown' || attempt.outcome === 'unfinished'),
  );
  const unknownCount = (operation: ReportedOperation) =>
    operation.attempts.filter((a) => a.outcome === 'unknown' || a.outcome === 'unfinished').length;
  const possible = operations.filter(
    (operation) => operation.writes <= 1 && operation.writes + unknownCount(operation) >= 2,
  );
  const collisions = operations.filter((operation) => operation.intent_digests.length > 1);
  const writers = new Map<string, { target_identity: string; partition: string; ids: Set<string> }>();
  for (const operation of operations.filter((entry) => entry.writes > 0)) {
    const key = `${operation.target_identity}\u0000${operation.partition}`;
    const entry = writers.get(key) ?? {
      target_identity: operation.target_identity,
      partition: operation.partition,
      ids: new Set<string>(),
    };
    entry.ids.add(operation.operation_id);
    writers.set(key, entry);
  }
  const shared = [...writers.values()]
    .filter((entry) => entry.ids.size > 1)
    .map((entry) => ({
      target_identity: entry.target_identity,
      partition: entry.partition,
      operation_ids: [...entry.ids],
    }));
  return {
    schema: SHADOW_REPORT_SCHEMA,
    journal,
    since,
    totals: {
      operations: operations.length,
      attempts: attempts.length,
      duplicate_operations: duplicates.length,
      duplicate_writes: duplicates.reduce((sum, operation) => sum + operation.writes - 1, 0),
      possible_duplicate_operations: possible.length,
      unknown_outcomes: unknown.reduce((sum, operation) => sum + unknownCount(operation), 0),
      identity_collisions: collisions.length,
      shared_partitions: shared.length,
    },
    duplicates,
    possible_duplicates: possible,
    unknown,
    identity_collisions: collisions,
    shared_partitions: shared,
  };
}
