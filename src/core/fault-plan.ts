import { appendFileSync, writeSync } from 'node:fs';
import { DponeError, ERROR_CODES } from '../contracts/errors.ts';
import type { FaultPoints } from '../ports/fault-points.ts';
import { NO_FAULTS } from '../ports/fault-points.ts';

/** Environment variable holding a JSON fault plan; absent means no fault points are active. */
export const FAULT_PLAN_ENV = 'DPONE_FAULT_PLAN';

export interface FaultPlan {
  /** Append each point passed, one per line, to this file (synchronously, so a SIGKILL keeps it). */
  readonly trace?: string;
  /** Park at the `hit`-th pass (1-based) of `point`, announce it, and wait for SIGUSR2. */
  readonly stop?: { readonly point: string; readonly hit: number };
  /** File descriptor the announcement is written to (a pipe the parent opened). Default 3. */
  readonly notifyFd?: number;
}

/** The signal a parked process waits for before it continues past its stop point. */
export const RESUME_SIGNAL = 'SIGUSR2';

export function parseFaultPlan(text: string): FaultPlan {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new DponeError(ERROR_CODES.INVALID_INPUT, `${FAULT_PLAN_ENV} is not valid JSON`, {
      field: FAULT_PLAN_ENV,
    });
  }
  if (typeof value !== 'object' || value === null) {
    throw new DponeError(ERROR_CODES.INVALID_INPUT, `${FAULT_PLAN_ENV} must be a JSON object`, {
      field: FAULT_PLAN_ENV,
    });
  }
  const plan = value as FaultPlan;
  if (
    plan.stop &&
    (typeof plan.stop.point !== 'string' || !Number.isInteger(plan.stop.hit) || plan.stop.hit < 1)
  ) {
    throw new DponeError(ERROR_CODES.INVALID_INPUT, `${FAULT_PLAN_ENV}.stop needs a point and a hit >= 1`, {
      field: `${FAULT_PLAN_ENV}.stop`,
    });
  }
  return plan;
}

/** Fault points for this process: free when the plan variable is unset. */
export function faultPointsFromEnv(env: NodeJS.ProcessEnv = process.env): FaultPoints {
  const text = env[FAULT_PLAN_ENV];
  return text ? new PlannedFaultPoints(parseFaultPlan(text)) : NO_FAULTS;
}

export class PlannedFaultPoints implements FaultPoints {
  readonly #plan: FaultPlan;
  readonly #hits = new Map<string, number>();

  constructor(plan: FaultPlan) {
    this.#plan = plan;
  }

  hit(point: string): void | Promise<void> {
    const count = (this.#hits.get(point) ?? 0) + 1;
    this.#hits.set(point, count);
    if (this.#plan.trace) appendFileSync(this.#plan.trace, `${point}\n`);
    const stop = this.#plan.stop;
    if (stop && stop.point === point && stop.hit === count) return this.#park(point, count);
  }

  #park(point: string, hit: number): Promise<void> {
    // A signal listener does not keep Node's event loop alive: without this timer a process parked
    // where nothing else is pending (e.g. between synchronous SQLite calls) exits on its own.
    const keepAlive = setInterval(() => undefined, 60_000);
    const resumed = new Promise<void>((resolve) =>
      process.once(RESUME_SIGNAL, () => {
        clearInterval(keepAlive);
        resolve();
      }),
    );
    const line = JSON.stringify({ event: 'parked', point, hit, pid: process.pid });
    writeSync(this.#plan.notifyFd ?? 3, `${line}\n`);
    return resumed;
  }
}
