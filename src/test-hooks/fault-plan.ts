import { appendFileSync, writeSync } from 'node:fs';
import { DponeError, ERROR_CODES } from '../contracts/errors.ts';
import type { FaultPoints } from '../ports/fault-points.ts';
import { NO_FAULTS } from '../ports/fault-points.ts';
import { isStatementPoint } from '../ports/statement-points.ts';

/** Environment variable holding a JSON fault plan; absent means no fault points are active. */
export const FAULT_PLAN_ENV = 'DPONE_FAULT_PLAN';

export interface FaultStop {
  readonly point: string;
  readonly hit: number;
}

export interface FaultPlan {
  /** Append each point passed, one per line, to this file (synchronously, so a SIGKILL keeps it). */
  readonly trace?: string;
  /**
   * Append `point<TAB>ms` per point passed to this file, ms on this process's monotonic clock
   * (performance.now). Only the harness's reference run asks, to measure how long a stretch between
   * two points lasts (e.g. the rows being written) so it can aim kills inside it.
   */
  readonly timings?: string;
  /** Park at the `hit`-th pass (1-based) of `point`, announce it, and wait for SIGUSR2. */
  readonly stop?: FaultStop;
  /**
   * More places to park, each like `stop` (a parent may look at the durable state at an earlier
   * point, release the process, and act again at a later one). Announced in the order reached.
   */
  readonly stops?: readonly FaultStop[];
  /**
   * Also pass statement points (`stmt:<step>.<n>:before|after`, ports/statement-points.ts): record
   * them in the trace and park at them. Off by default: they are never counted, recorded or stopped
   * at, so every other trace is what it was. Never written to `timings`.
   */
  readonly statements?: boolean;
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
  if (plan.stop) checkStop(plan.stop, `${FAULT_PLAN_ENV}.stop`);
  if (plan.statements !== undefined && typeof plan.statements !== 'boolean')
    throw new DponeError(ERROR_CODES.INVALID_INPUT, `${FAULT_PLAN_ENV}.statements must be a boolean`, {
      field: `${FAULT_PLAN_ENV}.statements`,
    });
  if (plan.stops !== undefined) {
    if (!Array.isArray(plan.stops))
      throw new DponeError(ERROR_CODES.INVALID_INPUT, `${FAULT_PLAN_ENV}.stops must be an array`, {
        field: `${FAULT_PLAN_ENV}.stops`,
      });
    plan.stops.forEach((stop, index) => checkStop(stop, `${FAULT_PLAN_ENV}.stops[${index}]`));
  }
  return plan;
}

function checkStop(stop: FaultStop, field: string): void {
  if (
    typeof stop !== 'object' ||
    stop === null ||
    typeof stop.point !== 'string' ||
    !Number.isInteger(stop.hit) ||
    stop.hit < 1
  ) {
    throw new DponeError(ERROR_CODES.INVALID_INPUT, `${field} needs a point and a hit >= 1`, { field });
  }
}

/** Fault points for this process: free when the plan variable is unset. */
export function faultPointsFromEnv(env: NodeJS.ProcessEnv = process.env): FaultPoints {
  const text = env[FAULT_PLAN_ENV];
  return text ? new PlannedFaultPoints(parseFaultPlan(text)) : NO_FAULTS;
}

export class PlannedFaultPoints implements FaultPoints {
  readonly #plan: FaultPlan;
  readonly #stops: readonly FaultStop[];
  readonly #hits = new Map<string, number>();
  readonly statements: boolean;

  constructor(plan: FaultPlan) {
    this.#plan = plan;
    this.statements = plan.statements === true;
    this.#stops = [...(plan.stop ? [plan.stop] : []), ...(plan.stops ?? [])];
  }

  hit(point: string): void | Promise<void> {
    const statement = isStatementPoint(point);
    if (statement && !this.statements) return;
    const count = (this.#hits.get(point) ?? 0) + 1;
    this.#hits.set(point, count);
    if (this.#plan.trace) appendFileSync(this.#plan.trace, `${point}\n`);
    if (this.#plan.timings && !statement)
      appendFileSync(this.#plan.timings, `${point}\t${performance.now().toFixed(1)}\n`);
    if (this.#stops.some((stop) => stop.point === point && stop.hit === count))
      return this.#park(point, count);
  }

  #park(point: string, hit: number): Promise<void> {
    // A signal listener does not keep Node's event loop alive: without this timer a process parked
    // where nothing else is pending (e.g. between an embedded engine's synchronous calls) exits on
    // its own.
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
