import type { CellEvidence } from '../evidence/evidence-types.ts';
import type { AcceptanceItem } from './acceptance-item.ts';
import { allPass, decidedBy } from './cell-verdicts.ts';

/** The spec's Airflow row needs these cases: pod loss, worker loss, XCom loss. */
const AIRFLOW_REQUIRED_CASES = ['pod-lost', 'worker-lost', 'xcom-lost'] as const;

/** The first check of a cell that is not PASS (why an airflow-live cell did not pass). */
function firstProblem(cell: CellEvidence): string {
  const check = cell.checks.find((candidate) => candidate.verdict !== 'PASS');
  return check ? `: ${check.name} ${check.verdict}: ${check.detail}` : '';
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

export const airflowItem: AcceptanceItem = {
  id: 'airflow-one-mutation',
  text: 'Airflow (the test plan row): retries=3, worker/pod loss, XCom loss -> one operation and one target mutation, decided by a real Airflow scheduler',
  evaluate(cells) {
    // The Airflow example in shadow mode writes again on a retry by design: shadow-report-exact decides it.
    const live = cells.filter(
      (cell) => cell.fault.kind === 'airflow-live' && cell.airflow?.mode !== 'shadow',
    );
    const failed = allPass(live, 'airflow-live');
    if (failed) {
      const example = live.find((cell) => cell.verdict !== 'PASS');
      return example ? { ...failed, detail: `${failed.detail}${firstProblem(example)}` } : failed;
    }
    const unrecorded = live.filter((cell) => !cell.airflow);
    if (unrecorded.length > 0)
      return {
        status: 'FAIL',
        ...decidedBy(unrecorded),
        detail: `${unrecorded[0]!.id} has no record of what Airflow did`,
      };
    const cases = new Set(live.map((cell) => String(cell.fault.case)));
    const missing = AIRFLOW_REQUIRED_CASES.filter((name) => !cases.has(name));
    if (missing.length > 0)
      return { status: 'FAIL', ...decidedBy(live), detail: `no airflow-live cell for ${missing.join(', ')}` };
    const tries = live.map(
      (cell) =>
        new Set(cell.airflow!.runs.flatMap((run) => run.tries.map((t) => `${run.run_id}#${t.try_number}`)))
          .size,
    );
    const runs = live.map((cell) => new Set(cell.airflow!.runs.map((run) => run.run_id)).size);
    return {
      status: 'PASS',
      ...decidedBy(live),
      detail: `${live.length} airflow-live cells PASS on Airflow ${live[0]!.airflow!.version}: ${sum(runs)} DAG runs, ${sum(tries)} task tries (up to ${Math.max(...tries)} in a cell), each cell one operation and at most one mutation`,
    };
  },
};
