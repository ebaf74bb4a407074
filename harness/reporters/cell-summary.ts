import type { CellEvidence, Evidence } from '../evidence/evidence-types.ts';
import type { Verdict } from '../verdict.ts';
import { VERDICTS } from '../verdict.ts';

/** Worst first, so a reader meets the failures before anything else. */
const ORDER: Readonly<Record<Verdict, number>> = { FAIL: 0, UNKNOWN: 1, UNVERIFIED: 2, PASS: 3 };

/** Cells sorted failures first, then by id (stable for a given evidence). */
export function failuresFirst(cells: readonly CellEvidence[]): CellEvidence[] {
  return [...cells].sort((a, b) => ORDER[a.verdict] - ORDER[b.verdict] || compareIds(a.id, b.id));
}

export function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The certified route's own cells; unsafe-variant cells belong to the sensitivity result. */
export function routeCells(evidence: Evidence): CellEvidence[] {
  return evidence.cells.filter((cell) => cell.variant === null);
}

export function variantCells(evidence: Evidence): CellEvidence[] {
  return evidence.cells.filter((cell) => cell.variant !== null);
}

/** Why a cell got its verdict: the first check that carries the cell's verdict. */
export function cellReason(cell: CellEvidence): string {
  if (cell.verdict === 'PASS') return 'all checks passed';
  const decisive = cell.checks.find((check) => check.verdict === cell.verdict);
  if (decisive) return `${decisive.name}: ${decisive.detail}`;
  const other = cell.checks.find((check) => check.verdict !== 'PASS');
  return other ? `${other.name}: ${other.detail}` : `${cell.verdict} (no check recorded a reason)`;
}

/**
 * The matrix row a cell belongs to: the fault point it injects at (so a crash and a pause at the
 * same point share a row), or, for faults without a point (race, intent conflict, random kill),
 * the cell id without any unsafe-variant prefix.
 */
export function faultLabel(cell: CellEvidence): string {
  if (typeof cell.fault.point === 'string' && cell.fault.point) return cell.fault.point;
  let label = cell.id;
  for (const prefix of [cell.variant && `variant:${cell.variant}`, cell.variant]) {
    if (prefix && label.startsWith(`${prefix}/`)) label = label.slice(prefix.length + 1);
  }
  return label;
}

const SYMBOLS: Readonly<Record<string, string>> = { PASS: '✓', FAIL: '✗', UNKNOWN: '?', UNVERIFIED: '–' };

/** A verdict as one symbol (✓ ✗ ? –), so colour is never the only signal. */
export function verdictSymbol(verdict: string): string {
  return SYMBOLS[verdict] ?? '?';
}

/** A chip's short text: which kind of cell (d1, d2, random, race size…) and a verdict symbol. */
export function cellTag(cell: CellEvidence): string {
  const fault = cell.fault;
  let tag = fault.kind;
  if (fault.kind === 'crash')
    tag = fault.recovery_point ? 'd2' : typeof fault.delay_ms === 'number' || !fault.point ? 'random' : 'd1';
  else if (fault.kind === 'race' && typeof fault.workers === 'number') tag = `${fault.workers}w`;
  else if (fault.kind === 'airflow-retry') tag = 'airflow';
  else if (fault.kind === 'airflow-live') tag = `airflow ${String(fault.case)}`;
  else if (fault.kind === 'intent-conflict') tag = 'conflict';
  else if ((fault.kind === 'journal-loss' || fault.kind === 'fence-loss') && typeof fault.mode === 'string')
    tag = fault.mode;
  return `${tag} ${verdictSymbol(cell.verdict)}`;
}

export function verdictCounts(cells: readonly CellEvidence[]): Record<Verdict, number> {
  const counts = Object.fromEntries(VERDICTS.map((verdict) => [verdict, 0])) as Record<Verdict, number>;
  for (const cell of cells) counts[cell.verdict]++;
  return counts;
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}
