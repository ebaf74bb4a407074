import type { CellEvidence } from '../evidence/evidence-types.ts';
import { SHADOW_PARITY, SHADOW_REPORT } from '../evidence/check-names.ts';
import type { AcceptanceItem } from './acceptance-item.ts';
import { checkPassed, decidedBy, notAllPass } from './cell-verdicts.ts';

const figure = (cell: CellEvidence, name: string): number | null =>
  typeof cell.fault[name] === 'number' ? (cell.fault[name] as number) : null;

/**
 * A shadow cell that really reached a duplicate: the target's own rows hold a second mutation, and
 * the shadow report counted it as certain (no attempt died between its commit and its record).
 */
function countedDuplicate(cell: CellEvidence): boolean {
  const mutations = cell.target?.mutations ?? 0;
  return (
    cell.fault.mode === 'shadow' &&
    figure(cell, 'unknowable') === 0 &&
    mutations >= 2 &&
    figure(cell, 'report_duplicate_writes') === mutations - 1
  );
}

/** The Airflow example run in shadow mode (an airflow-live cell of case `shadow`). */
const inAirflow = (cell: CellEvidence) =>
  cell.fault.kind === 'airflow-live' && cell.airflow?.mode === 'shadow';

/**
 * Issue 36's item: shadow mode leaves the target exactly as legacy does, and `dpone shadow report`
 * counts exactly the extra mutations the target's own rows show. Decided by the shadow cells (kind
 * `shadow`, and the Airflow example in shadow mode, which a run with Airflow cells must have): each PASSes with both its parity and its report check PASS (a cell without them
 * decided nothing), at least one shadow cell reached a duplicate in the target that the report
 * counted exactly, one died between its commit and its record (listed as possible), and at least
 * one legacy cell wrote no shadow record. No shadow cell is FAIL; cells that could not run are
 * UNVERIFIED, and so is the item.
 */
export const shadowReportItem: AcceptanceItem = {
  id: 'shadow-report-exact',
  text: 'shadow mode writes exactly what legacy writes, and its report counts exactly the duplicates the target shows',
  evaluate(cells) {
    const shadow = cells.filter((cell) => cell.fault.kind === 'shadow' || inAirflow(cell));
    const airflow = shadow.filter(inAirflow);
    const airflowRan = cells.some((cell) => cell.fault.kind === 'airflow-live' && !inAirflow(cell));
    if (shadow.length === 0)
      return {
        status: 'FAIL',
        cells: 0,
        detail: 'no shadow cell in the evidence: nothing decided this item',
      };
    const failed = notAllPass(shadow, 'shadow');
    if (failed) return failed;
    const unchecked = shadow.filter(
      (cell) => !checkPassed(cell, SHADOW_PARITY) || !checkPassed(cell, SHADOW_REPORT),
    );
    if (unchecked.length > 0)
      return {
        status: 'FAIL',
        ...decidedBy(unchecked),
        detail: `${unchecked[0]!.id} has no passing ${SHADOW_PARITY} and ${SHADOW_REPORT} checks`,
      };
    const counted = shadow.filter(countedDuplicate);
    const airflowCounted = airflow.filter(
      (cell) => (cell.target?.mutations ?? 0) >= 2 && cell.checks.some((c) => c.name === SHADOW_REPORT),
    );
    const unknowable = shadow.filter(
      (cell) => cell.fault.mode === 'shadow' && figure(cell, 'unknowable') === 1,
    );
    const legacy = shadow.filter((cell) => cell.fault.mode === 'legacy');
    const missing = [
      ...(counted.length === 0 ? ['a duplicate in the target counted by the report'] : []),
      ...(unknowable.length === 0 ? ['a kill between the commit and its record'] : []),
      ...(legacy.length === 0 ? ['a legacy cell'] : []),
      ...(airflowRan && airflowCounted.length === 0 ? ['the Airflow example retried in shadow mode'] : []),
    ];
    if (missing.length > 0)
      return {
        status: 'FAIL',
        ...decidedBy(shadow),
        detail: `no shadow cell reached ${missing.join(', ')}: the item is not decided`,
      };
    return {
      status: 'PASS',
      ...decidedBy(shadow),
      detail:
        `${shadow.length - legacy.length - airflow.length} shadow cells wrote what legacy writes; in ${counted.length} the target's second mutation was counted exactly by the report, ` +
        `${unknowable.length} killed between commit and record listed it as possible; ${legacy.length} legacy cells recorded nothing` +
        (airflow.length > 0
          ? `; ${airflow.length} Airflow DAG run${airflow.length === 1 ? '' : 's'} in shadow mode retried and reported exactly`
          : ''),
    };
  },
};
