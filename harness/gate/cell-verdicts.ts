import type { CellEvidence } from '../evidence/evidence-types.ts';
import { isCommitState, isOperatorOnlyTransition } from '../../src/contracts/states.ts';
import type { ItemVerdict } from './acceptance-item.ts';

export const mutations = (cell: CellEvidence): number => cell.target?.mutations ?? 0;

/** Whether the cell's check `name` is there and PASS. */
export const checkPassed = (cell: CellEvidence, name: string): boolean =>
  cell.checks.some((check) => check.name === name && check.verdict === 'PASS');

/** How many cells decided a line, and which: their ids in id order. */
export function decidedBy(cells: readonly CellEvidence[]): Pick<ItemVerdict, 'cells' | 'decided_by'> {
  return { cells: cells.length, decided_by: cells.map((cell) => cell.id).sort() };
}

/**
 * All selected cells PASS (UNVERIFIED is not PASS) and none shows a second mutation; null when so.
 * No cell at all is FAIL: an item that nothing decided is not certified (a missing environment
 * shows as cells that are there but UNVERIFIED, not as no cells).
 */
export function allPass(cells: readonly CellEvidence[], what: string): ItemVerdict | null {
  if (cells.length === 0)
    return { status: 'FAIL', cells: 0, detail: `no ${what} cell in the evidence: nothing decided this item` };
  const doubled = cells.filter((cell) => mutations(cell) > 1);
  if (doubled.length > 0)
    return {
      status: 'FAIL',
      ...decidedBy(doubled),
      detail: `${doubled.length} ${what} cell(s) show a second mutation, e.g. ${doubled[0]!.id}`,
    };
  return notAllPass(cells, what);
}

/**
 * A storage line's common rule: every cell PASSes (allPass), each with every one of `own` PASS and
 * exactly one mutation; null when they do, else the line's FAIL naming the first cell (`missing`:
 * the line's words for a cell without its own checks PASS).
 */
export function eachPassesOnce(
  cells: readonly CellEvidence[],
  what: string,
  own: readonly string[],
  missing = `not every one of ${own.join(', ')} PASS`,
): ItemVerdict | null {
  const failed = allPass(cells, what);
  if (failed) return failed;
  const wrong = cells.filter((cell) => own.some((name) => !checkPassed(cell, name)) || mutations(cell) !== 1);
  if (wrong.length === 0) return null;
  return {
    status: 'FAIL',
    ...decidedBy(wrong),
    detail: `${wrong[0]!.id}: ${missing}, or not exactly one mutation`,
  };
}

/**
 * The line for selected cells that are not all PASS (the worst of FAIL, UNKNOWN, UNVERIFIED wins),
 * null when they all PASS.
 */
export function notAllPass(cells: readonly CellEvidence[], what: string): ItemVerdict | null {
  const notPass = cells.filter((cell) => cell.verdict !== 'PASS');
  if (notPass.length === 0) return null;
  const status = notPass.some((cell) => cell.verdict === 'FAIL')
    ? 'FAIL'
    : notPass.some((cell) => cell.verdict === 'UNKNOWN')
      ? 'UNKNOWN'
      : 'UNVERIFIED';
  return {
    status,
    ...decidedBy(notPass),
    detail: `${notPass.length}/${cells.length} ${what} cells not PASS, e.g. ${notPass[0]!.id} ${notPass[0]!.verdict}`,
  };
}

/** `cas:A->B` for every executor transition seen in the cells' journal histories. */
export function transitionsSeen(cells: readonly CellEvidence[]): Set<string> {
  const seen = new Set<string>();
  for (const cell of cells)
    for (const record of cell.journal?.history ?? []) {
      if (record.kind !== 'transition' || !record.from_state) continue;
      if (!isCommitState(record.from_state) || !isCommitState(record.to_state)) continue;
      if (isOperatorOnlyTransition(record.from_state, record.to_state)) continue;
      seen.add(`cas:${record.from_state}->${record.to_state}`);
    }
  return seen;
}
