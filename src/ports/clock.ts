/** Wall-clock milliseconds; leases compare against it. Tests pass a controllable clock. */
export interface Clock {
  nowMs(): number;
}

export const SYSTEM_CLOCK: Clock = { nowMs: () => Date.now() };
