import type { CellEvidence, SensitivityRecord, SkippedVariantCell } from '../evidence/evidence-types.ts';
import {
  ATOMIC_VISIBILITY,
  AUDIT_TRUTH,
  INTENT_CONFLICT_REFUSED,
  JOURNAL_LEASE,
  LEASE_BOUND,
  LOST_COMMIT_DIVERGED,
  POWER_LOSS_ACKNOWLEDGED,
  POWER_LOSS_DURABLE,
  POWER_LOSS_RECOVERY,
  REFERENCE_RUN,
  SHADOW_PARITY,
  SHADOW_REPORT,
  STALL_BOUNDED,
  STORAGE_UNTOUCHED,
  ZOMBIE_FENCED,
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
 * the target's own rows contradict, a journal transition written without the lease, a committed
 * journal transition a power cut took back (read from the journal file itself), a zombie's commit
 * the target holds though the next holder had prepared a newer epoch, or a reference run that did
 * not end as a clean run must.
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
  // Shadow mode: the target's mutations against legacy's, and against what the shadow report counted.
  SHADOW_PARITY,
  SHADOW_REPORT,
  POWER_LOSS_DURABLE,
  POWER_LOSS_RECOVERY,
  POWER_LOSS_ACKNOWLEDGED,
  // A zombie that committed under a superseded epoch, read from the target's rows while the next
  // holder was held after preparing the fence.
  ZOMBIE_FENCED,
]);

/** A variant cell catches its variant when it FAILs on one of the catching checks. */
export function catches(cell: CellEvidence): boolean {
  return (
    cell.verdict === 'FAIL' &&
    cell.checks.some((check) => check.verdict === 'FAIL' && CATCHING_CHECKS.has(check.name))
  );
}

/**
 * One record per unsafe variant, in mutation testing's terms: `killed` (a cell caught it, by which
 * checks), `survived` (cells ran and none caught it) or `not-run` (none of its cells could run here,
 * with the reason the environment gave: never shown as survived). `cells_run` counts only the cells
 * that ran (not UNVERIFIED), `cells_not_run` those that could not, `cells_skipped` those not started
 * once it was caught. `variants` lists the variants the run planned (a planned variant with no cell
 * is uncaught); absent, the variants found on the cells. Sorted by variant name.
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
    const ran = own.filter((cell) => cell.verdict !== 'UNVERIFIED');
    const catchingCells = own.filter(catches);
    const example = catchingCells.map((cell) => cell.id).sort()[0];
    const notRun = skipped.filter((skip) => skip.variant === variant).length;
    const unverified = own.length - ran.length;
    const state = example !== undefined ? 'killed' : ran.length > 0 ? 'survived' : 'not-run';
    return {
      variant,
      caught: example !== undefined,
      state,
      cells_failed: own.filter((cell) => cell.verdict === 'FAIL').length,
      cells_run: ran.length,
      ...(unverified > 0 ? { cells_not_run: unverified } : {}),
      ...(notRun > 0 ? { cells_skipped: notRun } : {}),
      ...(example !== undefined ? { example_cell: example, killed_by: killingChecks(catchingCells) } : {}),
      ...(state === 'not-run' ? { not_run_reason: notRunReason(own) } : {}),
    };
  });
}

/** The catching checks that FAILed on the cells that caught a variant, by name, sorted. */
function killingChecks(cells: readonly CellEvidence[]): string[] {
  const names = cells.flatMap((cell) =>
    cell.checks.filter((check) => check.verdict === 'FAIL' && CATCHING_CHECKS.has(check.name)),
  );
  return [...new Set(names.map((check) => check.name))].sort();
}

/** Why a variant's cells could not run: the reason most of them give (their UNVERIFIED check). */
function notRunReason(cells: readonly CellEvidence[]): string {
  const counts = new Map<string, number>();
  for (const cell of cells) {
    const reason =
      cell.checks.find((check) => check.verdict === 'UNVERIFIED')?.detail ?? 'no reason recorded';
    counts.set(reason, (counts.get(reason) ?? 0) + 1);
  }
  return (
    [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0] ?? 'no cell of it was planned'
  );
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
