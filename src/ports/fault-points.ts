/**
 * Named fault points. Every journal transition and connector step passes one, e.g.
 * `cas:PREPARED->COMMITTING:after` or `target.commit:before`. Without a fault plan `hit` does
 * nothing and returns undefined; under a plan it may record the point and may park the process
 * there until its parent kills, stops or releases it.
 */
export interface FaultPoints {
  hit(point: string): void | Promise<void>;
}

export const NO_FAULTS: FaultPoints = { hit: () => undefined };
