/**
 * Everything the certification harness can do to a production process, in one place. The harness
 * sets environment variables on the `dpone` processes it starts; the runtime reads them here and
 * nowhere else (test/dependency-direction.test.ts), and a process started without them gets the
 * free defaults below:
 *
 * - the fault plan (`DPONE_FAULT_PLAN`, fault-plan.ts): record the fault points passed, park at
 *   one until SIGUSR2 so the harness can kill it there. Unset: NO_FAULTS, a no-op.
 * - the harness clock (`DPONE_CLOCK_OFFSET_MS`, harness-clock.ts): run this many ms ahead, so a
 *   dead worker's lease has expired without waiting. Only under `DPONE_HARNESS=1`; else the
 *   system clock.
 * - the unsafe variants (`DPONE_UNSAFE_VARIANT`, unsafe-variant-request.ts): a DELIBERATELY broken
 *   target or executor, so the harness can show its checks catch it. Only under
 *   `DPONE_HARNESS=1`, never from one variable alone; the catalogue is src/ports/unsafe-variants.ts
 *   (shared) with each engine's own, assembled in src/cli/unsafe-catalogue.ts.
 *
 * The certified path (src/cli, src/adapters) imports this file only, never the files beside it.
 */
export type { FaultPlan, FaultStop } from './fault-plan.ts';
export { FAULT_PLAN_ENV, RESUME_SIGNAL, faultPointsFromEnv } from './fault-plan.ts';
export { CLOCK_OFFSET_ENV, clockFromEnv } from './harness-clock.ts';
export { HARNESS_ENV, UNSAFE_VARIANT_ENV } from '../ports/unsafe-variants.ts';
export {
  requestedRuntimeFlaws,
  requestedUnsafeVariant,
  withoutRuntimeOnlyVariant,
} from './unsafe-variant-request.ts';
