import type { CellEvidence, CellExpectation, CheckRecord } from '../evidence/evidence-types.ts';
import { worst } from '../verdict.ts';
import { runChecker } from './check-record.ts';
import type { CheckCellResult, CheckContext, Checker } from './check-types.ts';
import { claimsChecker } from './claims-checker.ts';
import { duplicateChecker } from './duplicate-checker.ts';
import { fenceAgreementChecker } from './fence-agreement-checker.ts';
import { fenceRecreatedChecker } from './fence-recreated-checker.ts';
import { inspectChecker } from './inspect-checker.ts';
import { journalHistoryChecker } from './journal-history-checker.ts';
import { journalLeaseChecker } from './journal-lease-checker.ts';
import { mutationChecker } from './mutation-checker.ts';
import { outcomeChecker } from './outcome-checker.ts';
import { parityChecker } from './parity-checker.ts';

/** The checkers, in report order; every cell gets those without `applies`, loss cells the rest too. */
export const CELL_CHECKERS: readonly Checker[] = [
  mutationChecker,
  duplicateChecker,
  parityChecker,
  journalHistoryChecker,
  journalLeaseChecker,
  outcomeChecker,
  claimsChecker,
  fenceAgreementChecker,
  fenceRecreatedChecker,
  inspectChecker,
];

export const CORE_CHECK_NAMES: ReadonlySet<string> = new Set(CELL_CHECKERS.map((checker) => checker.name));

export const DEFAULT_EXPECTATION: CellExpectation = { end: 'complete' };

/** Runs every (selected) checker on the context and adds the runner's own checks; the worst verdict wins. */
export function evaluateCell(
  context: CheckContext,
  extraChecks: readonly CheckRecord[] = [],
): CheckCellResult {
  const selected = context.expectation.checks;
  const checkers = (
    selected ? CELL_CHECKERS.filter((checker) => selected.includes(checker.name)) : CELL_CHECKERS
  ).filter((checker) => checker.applies?.(context) ?? true);
  const checks = [...checkers.map((checker) => runChecker(checker, context)), ...extraChecks];
  return {
    verdict: worst(checks.map((check) => check.verdict)),
    checks,
    target: context.target,
    journal: context.journal,
    expectation: context.expectation,
  };
}

/** A cell that never ran (no attempt, no target, no journal) cannot be better than UNVERIFIED. */
export function cellNeverRan(cell: CellEvidence): boolean {
  return cell.attempts.length === 0 && cell.target === null && cell.journal === null;
}
