import type { StatementPointName } from '../contracts/fault-point-names.ts';
import type { FaultPoints } from './fault-points.ts';

/**
 * Statement points: a fault point on each side of every statement a connector sends to a database
 * inside the protocol's guarded steps (the fence's preparation, the mutation, the fence's query),
 * like crash-consistency tools that stop a program at every system call. A point is named by the
 * step and the statement's ordinal in it, never by its SQL: `stmt:mutate.3:before` is "just before
 * the third statement of the mutation step", `stmt:mutate.3:after` "just after it returned". The
 * same step run again counts as the point's next hit (`#2`).
 */
export const STATEMENT_POINT_PREFIX = 'stmt:';

export type StatementSide = 'before' | 'after';

export function statementPoint(step: string, ordinal: number, side: StatementSide): StatementPointName {
  return `${STATEMENT_POINT_PREFIX}${step}.${ordinal}:${side}`;
}

export function isStatementPoint(point: string): boolean {
  return point.startsWith(STATEMENT_POINT_PREFIX);
}

/** The parts of a statement point's name, or null for any other point. */
export function parseStatementPoint(
  point: string,
): { readonly step: string; readonly ordinal: number; readonly side: StatementSide } | null {
  const match = /^stmt:([a-z][a-z-]*)\.([1-9][0-9]*):(before|after)$/.exec(point);
  return match ? { step: match[1]!, ordinal: Number(match[2]), side: match[3] as StatementSide } : null;
}

/**
 * Counts the statements of a connector's current step and passes a point on each side of each.
 * One per connector (its steps run one at a time); `begin` starts a step's count at 1. Inactive
 * (every call passes straight through) unless the fault plan observes statements.
 */
export class StatementPoints {
  readonly #faults: FaultPoints;
  #step = 'open';
  #ordinal = 0;

  constructor(faults: FaultPoints) {
    this.#faults = faults;
  }

  get active(): boolean {
    return this.#faults.statements === true;
  }

  begin(step: string): void {
    this.#step = step;
    this.#ordinal = 0;
  }

  /** Runs `send` (one statement) between its two points; a statement that throws passes no `after`. */
  async around<T>(send: () => Promise<T>): Promise<T> {
    if (!this.active) return send();
    const ordinal = ++this.#ordinal;
    const step = this.#step;
    await this.#faults.hit(statementPoint(step, ordinal, 'before'));
    const result = await send();
    await this.#faults.hit(statementPoint(step, ordinal, 'after'));
    return result;
  }
}
