import type { CellEvidence, SensitivityRecord, SkippedVariantCell } from '../evidence/evidence-types.ts';
import {
  ATOMIC_VISIBILITY,
  AUDIT_TRUTH,
  INTENT_CONFLICT_REFUSED,
  JOURNAL_LEASE,
  LEASE_BOUND,
  LOST_COMMIT_DIVERGED,
  REFERENCE_RUN,
  STALL_BOUNDED,
  STORAGE_UNTOUCHED,
} from '../evidence/check-names.ts';
import type { Verdict } from '../verdict.ts';
import { worst } from '../verdict.ts';

/**
 * Checks whose FAIL shows a broken guarantee from what the target and the storage hold (or how a
 * process ended), never from what the worker reported: what "caught" means. A duplicate or extra
 * mutation, a target that differs from the source (a changed value, lost rows), a target that
 * showed a partial mutation right after a kill or while a worker was stopped, a success the target
 * does not back, storage an intent conflict touched, an intent conflict not refused, a stalled
 * worker that never gave up, a lost commit taken for complete, an operation wedged past what the
 * journal's clock promises (its retries measured, not reported), an operator's audit statement
 * the target's own rows contradict, a journal transition written without the lease, or a
 * reference run that did not end as a clean run must.
 */
export const CATCHING_CHECKS: ReadonlySet<string> = new Set([
  'mutations',
  'duplicates',
  'parity',
  ATOMIC_VISIBILITY,
  'outcome',
  STORAGE_UNTOUCHED,
  INTENT_CONFLICT_REFUSED,
  STALL_BOUNDED,
  LOST_COMMIT_DIVERGED,
  LEASE_BOUND,
  AUDIT_TRUTH,
  // A transition the journal holds that was written by an executor not holding the lease then
  // (read by the harness from the journal's own history): the spec's one-active-lease guarantee.
  JOURNAL_LEASE,
  // How the reference run ended: a clean run of this build that does not end as one must.
  REFERENCE_RUN,
]);

/** A variant cell catches its variant when it FAILs on one of the catching checks. */
export function catches(cell: CellEvidence): boolean {
  return (
    cell.verdict === 'FAIL' &&
    cell.checks.some((check) => check.verdict === 'FAIL' && CATCHING_CHECKS.has(check.name))
  );
}

/**
 * One record per unsafe variant: cells run, cells failed, cells skipped once it was caught, caught,
 * and the first catching cell (by id). `variants` lists the variants the run planned (a planned
 * variant with no cell is uncaught); absent, the variants found on the cells. Sorted by variant name.
 */
export function buildSensitivity(
  cells: readonly CellEvidence[],
  variants?: readonly string[],
  skipped: readonly SkippedVariantCell[] = [],
): SensitivityRecord[] {
  const names = new Set(variants ?? []);
  for (const cell of cells) if (cell.variant !== null) names.add(cell.variant);
  return [...names].sort().map((variant) => {
    const own = cells.filter((cell) => cell.variant === variant);
    const catching = own
      .filter(catches)
      .map((cell) => cell.id)
      .sort();
    const example = catching[0];
    const notRun = skipped.filter((skip) => skip.variant === variant).length;
    return {
      variant,
      caught: example !== undefined,
      cells_failed: own.filter((cell) => cell.verdict === 'FAIL').length,
      cells_run: own.length,
      ...(notRun > 0 ? { cells_skipped: notRun } : {}),
      ...(example !== undefined ? { example_cell: example } : {}),
    };
  });
}

/**
 * Why the skipped variant cells of a piece of evidence are not justified (empty: each is). A cell
 * may be left unrun only when its variant was caught, by a cell present in `cells`, of that same
 * variant, that catches it by this build's own reading of its checks; never both run and skipped,
 * never skipped twice, and the id must name the variant (`…@variant`).
 */
export function unjustifiedSkips(
  cells: readonly CellEvidence[],
  skipped: readonly SkippedVariantCell[],
): string[] {
  const byId = new Map(cells.map((cell) => [cell.id, cell]));
  const seen = new Set<string>();
  const problems: string[] = [];
  for (const skip of skipped) {
    const catcher = byId.get(skip.caught_by);
    if (!skip.id.endsWith(`@${skip.variant}`))
      problems.push(`skipped cell ${skip.id} is not a cell of variant ${skip.variant}`);
    else if (byId.has(skip.id) || seen.has(skip.id))
      problems.push(`cell ${skip.id} is both skipped and run, or skipped twice`);
    else if (catcher === undefined)
      problems.push(`skipped cell ${skip.id} names ${skip.caught_by}, which is not in the evidence`);
    else if (catcher.variant !== skip.variant || !catches(catcher))
      problems.push(`skipped cell ${skip.id} names ${skip.caught_by}, which does not catch ${skip.variant}`);
    seen.add(skip.id);
  }
  return problems;
}

/**
 * The run verdict: the worst of the real (non-variant) cells, and FAIL when an unsafe variant went
 * uncaught. A variant whose every cell is UNVERIFIED (its environment was missing) makes the run
 * UNVERIFIED rather than FAIL: it was not shown to survive, only not run. No real cell: UNVERIFIED.
 */
export function runVerdict(
  cells: readonly CellEvidence[],
  sensitivity: readonly SensitivityRecord[],
): Verdict {
  const real = cells.filter((cell) => cell.variant === null);
  const verdicts: Verdict[] = real.length === 0 ? ['UNVERIFIED'] : real.map((cell) => cell.verdict);
  for (const record of sensitivity) {
    if (record.caught) continue;
    const own = cells.filter((cell) => cell.variant === record.variant);
    const neverRan = own.length > 0 && own.every((cell) => cell.verdict === 'UNVERIFIED');
    verdicts.push(neverRan ? 'UNVERIFIED' : 'FAIL');
  }
  return worst(verdicts);
}
