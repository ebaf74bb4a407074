import type { CellEvidence, Evidence } from '../evidence/evidence-types.ts';
import { INSTALL, missingComponent } from '../routes/engine-services.ts';
import { cellReason, routeCells } from './cell-summary.ts';

/** One reason some route cells were not verified, with how many, of which kinds, and what fixes it. */
export interface NotVerifiedGroup {
  readonly verdict: 'UNVERIFIED' | 'UNKNOWN';
  readonly reason: string;
  readonly cells: number;
  /** The fault kinds of those cells, sorted. */
  readonly kinds: readonly string[];
  /** One cell of the group, to replay. */
  readonly example: CellEvidence;
  /** The command that fixes it: doctor's install command for a missing part, else a replay. */
  readonly fix: string;
}

/**
 * The route's UNVERIFIED and UNKNOWN cells grouped by the reason their deciding check gave (and
 * the environment's, when it could not start), largest group first: a reviewer sees once "18 cells:
 * no Docker engine answers", and the command that fixes it, instead of the reason per cell.
 */
export function notVerifiedGroups(evidence: Evidence): NotVerifiedGroup[] {
  const groups = new Map<string, CellEvidence[]>();
  for (const cell of routeCells(evidence)) {
    if (cell.verdict !== 'UNVERIFIED' && cell.verdict !== 'UNKNOWN') continue;
    const key = `${cell.verdict}\u0000${cellReason(cell)}`;
    groups.set(key, [...(groups.get(key) ?? []), cell]);
  }
  return [...groups.entries()]
    .map(([key, cells]) => {
      const [verdict, reason] = key.split('\u0000') as ['UNVERIFIED' | 'UNKNOWN', string];
      const example = cells[0]!;
      return {
        verdict,
        reason,
        cells: cells.length,
        kinds: [...new Set(cells.map((cell) => cell.fault.kind))].sort(),
        example,
        fix: fixFor(verdict, reason, example),
      };
    })
    .sort((a, b) => b.cells - a.cells || (a.reason < b.reason ? -1 : 1));
}

/**
 * UNVERIFIED for want of a part doctor knows: its install command, then `dpone doctor` to check.
 * UNKNOWN (the cell ran, nothing decided): replay that cell alone, where load cannot starve it.
 */
function fixFor(verdict: 'UNVERIFIED' | 'UNKNOWN', reason: string, example: CellEvidence): string {
  if (verdict === 'UNKNOWN') return `replay it alone: ${example.reproduce}`;
  const component = missingComponent(reason);
  return component
    ? `${INSTALL[component]}; then dpone doctor`
    : 'dpone doctor (names what is missing and how to install it)';
}
