import { invalidInput } from '../contracts/errors.ts';
import type { Clock } from '../ports/clock.ts';
import { SYSTEM_CLOCK } from '../ports/clock.ts';
import { HARNESS_ENV } from '../ports/unsafe-variants.ts';

/**
 * Milliseconds a harness worker's clock runs ahead of the machine's. The certification harness
 * arranges "the dead worker's lease has expired" by starting the next worker that far ahead
 * instead of sleeping until it is true: the journal still decides expiry by its stored instants,
 * compared with the clock the worker hands it. Honoured only under DPONE_HARNESS=1.
 */
export const CLOCK_OFFSET_ENV = 'DPONE_CLOCK_OFFSET_MS';

/** At most one day ahead: more is a harness bug, not a lease to wait out. */
const MAX_OFFSET_MS = 86_400_000;

/** The clock of this process: the system's, or under the harness the system's plus its offset. */
export function clockFromEnv(env: NodeJS.ProcessEnv = process.env): Clock {
  const text = env[CLOCK_OFFSET_ENV];
  if (text === undefined || text === '' || env[HARNESS_ENV] !== '1') return SYSTEM_CLOCK;
  const offset = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(offset) || offset > MAX_OFFSET_MS) {
    throw invalidInput(
      `${CLOCK_OFFSET_ENV} must be a whole number of milliseconds from 0 to ${MAX_OFFSET_MS}`,
      {
        field: CLOCK_OFFSET_ENV,
      },
    );
  }
  return offset === 0 ? SYSTEM_CLOCK : { nowMs: () => Date.now() + offset };
}
