import type {
  CellEvidence,
  CellExpectation,
  JournalSnapshot,
  TargetSnapshot,
} from '../evidence/evidence-types.ts';
import { worst } from '../verdict.ts';
import { AIRFLOW_CHECK_NAMES, airflowChecks, blameHarness } from './airflow-checker.ts';
import { CORE_CHECK_NAMES, DEFAULT_EXPECTATION, cellNeverRan, evaluateCell } from './check-cell.ts';
import type { CheckCellResult } from './check-types.ts';
import { historyViolations } from './journal-history-checker.ts';
import { snapshotFromTrail } from './target-snapshot.ts';

export interface RecheckResult extends CheckCellResult {
  /** What the stored cell says that its own stored data does not support; empty when consistent. */
  readonly differences: readonly string[];
}

const TARGET_FIELDS = [
  'mutations',
  'duplicate_rows',
  'row_parity',
  'row_count',
  'target_digest',
  'duplicate_keys',
] as const;

function show(value: unknown): string {
  return Array.isArray(value) ? `[${value.join(',')}]` : String(value);
}

/** Recomputes the target's derived fields from its audit trail (when stored) and lists what differs. */
function recheckTarget(stored: TargetSnapshot, differences: string[]): TargetSnapshot {
  if (!stored.audit || stored.audit.row_lists_omitted !== undefined) {
    const parity =
      stored.row_count === stored.source_row_count && stored.target_digest === stored.source_digest;
    if (parity !== stored.row_parity)
      differences.push(`target.row_parity: stored ${stored.row_parity}, recomputed ${parity}`);
    // A trail without its row lists still holds every mutation it saw.
    const mutations = stored.audit?.mutation_records.length ?? stored.mutations;
    if (mutations !== stored.mutations)
      differences.push(`target.mutations: stored ${stored.mutations}, recomputed ${mutations}`);
    if (stored.audit && stored.audit.row_lists_omitted !== stored.row_count)
      differences.push(
        `target.row_count: stored ${stored.row_count}, the trail counted ${stored.audit.row_lists_omitted}`,
      );
    return { ...stored, row_parity: parity, mutations };
  }
  // The first difference was read from the rows, which the trail cannot replay: it is kept
  // where the trail shows no parity, and a stored one beside parity is a contradiction.
  const recomputed = snapshotFromTrail(
    stored.audit,
    {
      row_count: stored.source_row_count,
      digest: stored.source_digest,
      ...(stored.batch_rows !== undefined ? { batch_rows: stored.batch_rows } : {}),
    },
    stored.first_difference,
  );
  for (const field of TARGET_FIELDS) {
    if (show(stored[field]) !== show(recomputed[field])) {
      differences.push(
        `target.${field}: stored ${show(stored[field])}, recomputed ${show(recomputed[field])}`,
      );
    }
  }
  if (recomputed.row_parity && stored.first_difference)
    differences.push('target.first_difference: stored, but the trail shows parity');
  return recomputed;
}

function recheckJournal(stored: JournalSnapshot, differences: string[]): JournalSnapshot {
  const legal = historyViolations(stored).length === 0;
  if (legal !== stored.history_legal) {
    differences.push(`journal.history_legal: stored ${stored.history_legal}, recomputed ${legal}`);
  }
  return { ...stored, history_legal: legal };
}

/**
 * The expectation to re-check against. A runner that dropped core checks without recording the
 * selection in `expectation.checks` is taken at its word: only the core checks it stored are
 * recomputed (a consistent forgery needs a re-sealed digest, which no check can tell from truth).
 */
function withSelection(cell: CellEvidence): CellExpectation {
  const expectation = cell.expectation ?? DEFAULT_EXPECTATION;
  if (expectation.checks) return expectation;
  const stored = cell.checks.filter((check) => CORE_CHECK_NAMES.has(check.name)).map((check) => check.name);
  return stored.length === CORE_CHECK_NAMES.size ? expectation : { ...expectation, checks: stored };
}

/**
 * Recomputes a stored cell's verdict from its stored target snapshot (and audit trail), journal
 * history and attempts alone — no database is touched. `certify verify` uses it to detect a
 * hand-edited verdict or check, or a snapshot whose fields contradict its own raw data.
 */
export function recheckCell(cell: CellEvidence): RecheckResult {
  const differences: string[] = [];
  const expectation = withSelection(cell);
  if (cellNeverRan(cell)) {
    const verdict = worst([...cell.checks.map((check) => check.verdict), 'UNVERIFIED']);
    if (verdict !== cell.verdict)
      differences.push(`verdict: stored ${cell.verdict}, recomputed ${verdict} (the cell never ran)`);
    return { verdict, checks: cell.checks, target: null, journal: null, expectation, differences };
  }
  const target = cell.target === null ? null : recheckTarget(cell.target, differences);
  const journal = cell.journal === null ? null : recheckJournal(cell.journal, differences);
  // The Airflow checks are recomputed from the stored Airflow record, like the core checks.
  const airflow = cell.airflow ? airflowChecks(cell.airflow, journal) : [];
  // The runner's `harness` check of an Airflow cell is recomputed too (blameHarness, below).
  const recomputed = (name: string) =>
    CORE_CHECK_NAMES.has(name) ||
    (cell.airflow !== undefined && (AIRFLOW_CHECK_NAMES.has(name) || name === 'harness'));
  const extra = [...cell.checks.filter((check) => !recomputed(check.name)), ...airflow];
  const evaluated = evaluateCell(
    {
      target,
      journal,
      attempts: cell.attempts,
      expectation,
      targetError: 'no target snapshot stored',
      journalError: 'no journal snapshot stored',
      ...(cell.loss !== undefined ? { loss: cell.loss } : {}),
    },
    extra,
  );
  // Harness trouble told apart as the runner did: a stored UNKNOWN it made of a FAIL is no edit.
  const checks = cell.airflow ? blameHarness(evaluated.checks, cell.airflow) : evaluated.checks;
  const result = { ...evaluated, checks, verdict: worst(checks.map((check) => check.verdict)) };
  for (const check of result.checks) {
    if (!recomputed(check.name)) continue;
    const stored = cell.checks.find((candidate) => candidate.name === check.name);
    if (!stored) differences.push(`check ${check.name}: missing, recomputed ${check.verdict}`);
    else if (stored.verdict !== check.verdict) {
      differences.push(
        `check ${check.name}: stored ${stored.verdict}, recomputed ${check.verdict} (${check.detail})`,
      );
    }
  }
  if (result.verdict !== cell.verdict)
    differences.push(`verdict: stored ${cell.verdict}, recomputed ${result.verdict}`);
  return { ...result, differences };
}
