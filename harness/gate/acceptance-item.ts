import type { CellEvidence, Evidence } from '../evidence/evidence-types.ts';
import type { Verdict } from '../verdict.ts';

/** What decided a gate line: its status, how many cells decided it, and why. */
export interface ItemVerdict {
  readonly status: Verdict;
  /** Cells that decided the line; a line decided by zero cells is never PASS. */
  readonly cells: number;
  /** The ids of those cells, for an acceptance item (the certification record lists them). */
  readonly decided_by?: readonly string[];
  readonly detail: string;
}

/** One gate line: an acceptance item (or a precondition) and what the evidence says about it. */
export interface GateItemResult extends ItemVerdict {
  readonly id: string;
}

/** A mandatory acceptance item of the spec and how it is decided from one route's cells. */
export interface AcceptanceItem {
  readonly id: string;
  /** The spec's wording. */
  readonly text: string;
  /** `environment` is the evidence's (e.g. the loss modes the route declared). */
  evaluate(cells: readonly CellEvidence[], environment?: Evidence['environment']): ItemVerdict;
}
