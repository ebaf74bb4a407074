import type { AirflowRecord, CheckRecord, JournalSnapshot } from '../evidence/evidence-types.ts';
import { record } from './check-record.ts';

/** What `dpone run` reports when it succeeded (src/core/executor.ts ExecutionOutcome.status). */
const DPONE_SUCCESS = new Set(['committed', 'already-complete', 'completed-after-recovery']);
/** What it reports in shadow (and legacy) mode: the plain write succeeded (src/cli/commands/run-plain.ts). */
const DPONE_SHADOW_SUCCESS = new Set(['written']);

export const AIRFLOW_CHECK_NAMES: ReadonlySet<string> = new Set([
  'airflow-runs',
  'airflow-success-proven',
  'one-operation',
]);

function describeRun(run: AirflowRecord['runs'][number]): string {
  const tries = run.tries.map(
    (t) => `${t.state ?? 'none'}${t.harness_action ? `[${t.harness_action}]` : ''}`,
  );
  return `${run.run_type} ${run.run_id}: ${run.task_state ?? 'no task'} after ${run.tries.length} tr${run.tries.length === 1 ? 'y' : 'ies'} (${tries.join(', ')})`;
}

/**
 * Why the connector never ran in an airflow-live cell (no DAG run recorded, or no try got as far as
 * `dpone run`), or null when some try ran it. Then nothing the target shows is the connector's doing:
 * the harness's Airflow step failed before it, and the cell is UNKNOWN, never FAIL.
 */
export function connectorNeverRan(airflow: AirflowRecord): string | null {
  if (airflow.runs.length === 0) return 'Airflow recorded no DAG run: dpone never ran';
  if (airflow.runs.some((run) => run.tries.some((t) => t.folder !== undefined))) return null;
  return `no try of ${airflow.runs.map(describeRun).join('; ')} got as far as running dpone`;
}

/** The check an airflow-live cell carries when the harness's own Airflow step failed (its detail: the step and the wait). */
export const AIRFLOW_HARNESS_CHECK = 'airflow-harness';

/**
 * Whether a FAIL says only that the cell's end was not reached (what an Airflow step that gave up
 * midway leaves: the retry never ran, so the mutation never landed and the journal never ended)
 * rather than harm done (a second landing, a duplicate, an illegal history, a success Airflow
 * claimed): the first kind is undecidable once the harness stopped driving, the second stays FAIL.
 */
function onlyUnfinished(check: CheckRecord, checks: readonly CheckRecord[]): boolean {
  const unlanded = (c: CheckRecord) =>
    c.name === 'mutations' && /never landed|^\d+ of \d+ operations' mutations landed/.test(c.detail);
  if (check.name === 'outcome' || check.name === 'airflow-runs') return true;
  if (check.name === 'mutations') return unlanded(check);
  // Rows missing because the mutation never landed; a parity FAIL beside a landed mutation stays.
  if (check.name === 'parity') return checks.some((c) => c.verdict === 'FAIL' && unlanded(c));
  return false;
}

/**
 * The cell's checks with harness trouble told apart, naming the step and the wait (the
 * `airflow-harness` check's detail, from the wait that gave up):
 * - the connector never ran (no DAG run, or no try got as far as dpone): every FAIL (the mutation
 *   never landed, …) is not the connector's and becomes UNKNOWN;
 * - dpone ran, but a harness step gave up before the case reached its end (the scheduler never
 *   started the retry): the FAILs that only say the end was not reached become UNKNOWN, and the
 *   FAILs that show harm done (a second landing, duplicates, an illegal history) stay FAIL.
 * Either way a `harness` check says why. Otherwise the checks as they are.
 */
export function blameHarness(checks: readonly CheckRecord[], airflow: AirflowRecord): CheckRecord[] {
  const neverRan = connectorNeverRan(airflow);
  const step = checks.find((c) => c.name === AIRFLOW_HARNESS_CHECK && c.verdict === 'UNKNOWN')?.detail;
  if (neverRan === null && step === undefined) return [...checks];
  const why =
    neverRan !== null
      ? `${neverRan}${step !== undefined ? `; the step that failed: ${step}` : ''}`
      : `the step that failed: ${step!}`;
  const blamed = (c: CheckRecord) => c.verdict === 'FAIL' && (neverRan !== null || onlyUnfinished(c, checks));
  return [
    ...checks.map((c) =>
      blamed(c) ? { ...c, verdict: 'UNKNOWN' as const, detail: `${c.detail} (${why})` } : c,
    ),
    record(
      'harness',
      'UNKNOWN',
      neverRan !== null
        ? `the harness's Airflow step failed before the connector ran: ${why}`
        : `the harness's Airflow step failed before the case reached its end, after dpone ran: ${why}`,
    ),
  ];
}

/** Every run ended in the task state the cell required, after exactly the tries it required. */
function runsCheck(airflow: AirflowRecord): CheckRecord {
  if (airflow.runs.length === 0) return record('airflow-runs', 'UNKNOWN', 'no DAG run was recorded');
  const wrong = airflow.runs.filter(
    (run) => run.task_state !== run.expected.task_state || run.tries.length !== run.expected.tries,
  );
  if (wrong.length > 0)
    return record(
      'airflow-runs',
      'FAIL',
      wrong
        .map((run) => `${describeRun(run)}; expected ${run.expected.task_state} after ${run.expected.tries}`)
        .join('; '),
    );
  return record('airflow-runs', 'PASS', airflow.runs.map(describeRun).join('; '));
}

/**
 * A task try Airflow marked success ran `dpone run` to a success of its own (exit 0 and, when
 * its XCom survived, a success status), and the journal ended COMPLETE: Airflow's success is
 * backed by the journal, never by the task alone.
 */
function successCheck(airflow: AirflowRecord, journal: JournalSnapshot | null): CheckRecord {
  // Shadow mode runs no protocol: the journal holds shadow records, no operation to complete.
  const protocol = airflow.mode !== 'shadow';
  // A run recorded twice (before and after a clear) lists its earlier tries twice: count each once.
  const seen = new Set<string>();
  const successes = airflow.runs.flatMap((run) =>
    run.tries
      .filter((t) => t.state === 'success' && !seen.has(`${run.run_id}#${t.try_number}`))
      .map((t) => (seen.add(`${run.run_id}#${t.try_number}`), { run, t })),
  );
  const problems: string[] = [];
  const success = protocol ? DPONE_SUCCESS : DPONE_SHADOW_SUCCESS;
  for (const { run, t } of successes) {
    if (t.dpone_status !== null && t.dpone_status !== undefined && !success.has(t.dpone_status))
      problems.push(`${run.run_id} try ${t.try_number} succeeded although dpone reported ${t.dpone_status}`);
    if (t.folder === undefined)
      problems.push(`${run.run_id} try ${t.try_number} succeeded without running dpone`);
    else if (t.dpone_exit !== 0)
      problems.push(
        `${run.run_id} try ${t.try_number} succeeded although dpone exited ${t.dpone_exit ?? 'unknown'}`,
      );
  }
  if (protocol && successes.length > 0 && journal !== null && journal.final_state !== 'COMPLETE')
    problems.push(`Airflow reported success but the journal ended ${journal.final_state ?? 'empty'}`);
  if (problems.length > 0) return record('airflow-success-proven', 'FAIL', problems.join('; '));
  if (!protocol)
    return record(
      'airflow-success-proven',
      'PASS',
      `${successes.length} successful tr${successes.length === 1 ? 'y' : 'ies'}, each a dpone success (shadow mode: no operation to complete)`,
    );
  if (journal === null) return record('airflow-success-proven', 'UNKNOWN', 'the journal was not read');
  return record(
    'airflow-success-proven',
    'PASS',
    `${successes.length} successful tr${successes.length === 1 ? 'y' : 'ies'}, each a dpone success; journal ${journal.final_state}`,
  );
}

/** Every DAG run of the cell (retries, clears, other runs of the interval) was one operation. */
function operationCheck(airflow: AirflowRecord): CheckRecord {
  return airflow.operations === 1
    ? record('one-operation', 'PASS', `${airflow.runs.length} DAG run(s), one operation in the journal`)
    : record(
        'one-operation',
        'FAIL',
        `${airflow.runs.length} DAG run(s) of one interval made ${airflow.operations} operations`,
      );
}

/**
 * The checks of an airflow-live cell, from Airflow's own metadata (as recorded) and the journal
 * snapshot. Pure, so `certify verify` recomputes them from the stored evidence. In shadow mode
 * there is no operation (a retry writes again, as legacy does): the shadow checks the cell
 * carries decide what it wrote, and no `one-operation` check applies.
 */
export function airflowChecks(airflow: AirflowRecord, journal: JournalSnapshot | null): CheckRecord[] {
  if (airflow.mode === 'shadow') return [runsCheck(airflow), successCheck(airflow, journal)];
  return [runsCheck(airflow), successCheck(airflow, journal), operationCheck(airflow)];
}
