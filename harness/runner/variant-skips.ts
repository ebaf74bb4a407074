import { catches } from '../checkers/sensitivity.ts';
import type { CellEvidence, SkippedVariantCell } from '../evidence/evidence-types.ts';
import type { PlannedCell } from '../plan/cell.ts';

/**
 * Mutation testing's "stop once killed" for the unsafe variants: once a cell of a variant has caught
 * it (FAILed on a check that reads storage, `catches`), the variant's cells that have not started yet
 * are not run. What is certified stays decided by real cells: the variant is caught by the cell named
 * in each skip, which `certify merge` and `certify gate` check is in the evidence and catches it.
 * Disabled (`everyCell`), every planned cell runs, as for a reviewer who wants each variant's
 * "failed in N of M cells".
 */
export class VariantSkips {
  readonly #enabled: boolean;
  readonly #caughtBy = new Map<string, string>();

  constructor(enabled: boolean) {
    this.#enabled = enabled;
  }

  /** The skip record for a cell about to start, or null when it must run. */
  skipFor(cell: PlannedCell): SkippedVariantCell | null {
    if (!this.#enabled || cell.variant === null) return null;
    const caughtBy = this.#caughtBy.get(cell.variant);
    return caughtBy === undefined ? null : { id: cell.id, variant: cell.variant, caught_by: caughtBy };
  }

  /** Notes a finished cell: the first cell that catches a variant is what later skips name. */
  record(cell: CellEvidence): void {
    if (cell.variant !== null && !this.#caughtBy.has(cell.variant) && catches(cell))
      this.#caughtBy.set(cell.variant, cell.id);
  }
}

export function isSkip(outcome: CellEvidence | SkippedVariantCell): outcome is SkippedVariantCell {
  return 'caught_by' in outcome;
}
