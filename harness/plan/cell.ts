import type { FaultRecord } from '../evidence/evidence-types.ts';
import type { CellWorkloadOptions } from '../routes/route.ts';
import type { FaultKind, FaultSpec } from '../scenario/scenario-schema.ts';

/** What a fault module's planner returns for one cell, before the scenario prefix is added. */
export interface CellDraft {
  /** Id inside the scenario, e.g. `d1/cas:PREPARED->COMMITTING:after#1`, `8`, `seed42-3`. */
  readonly localId: string;
  readonly fault: FaultRecord;
  /** Kind-specific parameters the module's `run` reads back. */
  readonly params: Readonly<Record<string, unknown>>;
  /** Part of the subset run again for each unsafe variant. */
  readonly sensitive: boolean;
  /**
   * When set, the only unsafe variants this sensitive cell is run again for (a clock-skew cell
   * shows clock and recovery flaws; rerunning it for every fence flaw would cost without showing more).
   */
  readonly sensitiveTo?: readonly string[];
  /**
   * Run again only for the variants that break the TARGET (not the executor's own flaws, which
   * such a cell cannot see: a statement boundary of the target says nothing of the executor).
   */
  readonly targetVariantsOnly?: boolean;
  /** Variants that run only on the cells that name them (UnsafeVariant.onlyWhereNamed), when sensitive. */
  readonly variants?: readonly string[];
}

/** One planned cell: stable id, what it does and on which fresh world. */
export interface PlannedCell {
  /** Stable across runs with the same seed and traces: `<scenario>/<localId>[@<variant>]`. */
  readonly id: string;
  readonly scenario: string;
  readonly scenarioFile: string;
  readonly route: string;
  readonly kind: FaultKind;
  readonly spec: FaultSpec;
  readonly variant: string | null;
  readonly fault: FaultRecord;
  readonly params: Readonly<Record<string, unknown>>;
  readonly workload: CellWorkloadOptions;
  /** Checker names to keep; null = all. */
  readonly checks: readonly string[] | null;
  readonly seed: number;
}
