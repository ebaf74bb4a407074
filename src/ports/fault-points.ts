import type { FaultPointName } from '../contracts/fault-point-names.ts';

/**
 * Named fault points. Every journal transition and connector step passes one, e.g.
 * `cas:PREPARED->COMMITTING:after` or `target.commit:before`. Without a fault plan `hit` does
 * nothing and returns undefined; under a plan it may record the point and may park the process
 * there until its parent kills, stops or releases it.
 *
 * Statement points (`stmt:<step>.<ordinal>:before|after`, see statement-points.ts) are passed on
 * each side of every statement a connector sends inside its guarded steps; a connector passes them
 * only when `statements` is true, so they cost nothing otherwise. The names are catalogued in
 * contracts/fault-point-names.ts: a name outside the catalogue does not type-check.
 */
export interface FaultPoints {
  hit(point: FaultPointName): void | Promise<void>;
  /** True when this plan observes statement points (connectors then wrap what they send). */
  readonly statements?: boolean;
}

export const NO_FAULTS: FaultPoints = { hit: () => undefined };
