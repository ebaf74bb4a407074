import type { CommitState } from './states.ts';
import { COMMIT_STATES } from './states.ts';

/**
 * The catalogue of fault-point names (ports/fault-points.ts): every name the runtime passes, as a
 * type, so that a misspelt point in the runtime or the harness fails the type check instead of
 * silently never being hit. Four families:
 * - a step's two sides, `<step>:before|after` (FAULT_STEPS);
 * - the target's own moments (TARGET_MOMENTS), e.g. `target.commit:sent`;
 * - a journal compare-and-set, `cas:<FROM>-><TO>:before|after` (casPoint);
 * - a statement boundary, `stmt:<step>.<n>:before|after` (ports/statement-points.ts).
 */
export type PointSide = 'before' | 'after';

/** Steps that pass a point on each side. */
export const FAULT_STEPS = [
  'journal.read',
  'journal.create',
  'lease.acquire',
  'source.read',
  'fence.prepare',
  'fence.query',
  'target.stage',
  'target.marker',
  'target.commit',
  'state.complete',
  /** Shadow mode: the attempt's outcome written to the shadow journal, after the plain write. */
  'shadow.record',
  'recovery.apply:read',
  'recovery.apply:fence.query',
  'recovery.apply:lease',
  'recovery.apply:fence.raise',
  'recovery.apply:state.complete',
  'recovery.apply:cas',
] as const;

export type FaultStep = (typeof FAULT_STEPS)[number];

/** Points of the target's write that are not one side of a step. */
export const TARGET_MOMENTS = [
  'target.mutate:begin',
  'target.mutate:after',
  'target.commit:sent',
  'target.settle:after',
] as const;

export type CasPoint = `cas:${CommitState}->${CommitState}:${PointSide}`;
export type StatementPointName = `stmt:${string}.${number}:${PointSide}`;

export type FaultPointName =
  `${FaultStep}:${PointSide}` | (typeof TARGET_MOMENTS)[number] | CasPoint | StatementPointName;

export const CAS_POINT_PREFIX = 'cas:';

/** The point on one side of the journal's compare-and-set from `from` to `to`. */
export function casPoint(from: CommitState, to: CommitState, side: PointSide): CasPoint {
  return `${CAS_POINT_PREFIX}${from}->${to}:${side}`;
}

/** True for a journal compare-and-set's point (`cas:A->B:before|after`). */
export function isCasPoint(point: string): boolean {
  return point.startsWith(CAS_POINT_PREFIX);
}

/** True when `point` is a catalogued name (for names read from a trace file or written in a test). */
export function isFaultPointName(point: string): point is FaultPointName {
  const side = /:(before|after)$/.exec(point);
  const stem = side ? point.slice(0, -side[0].length) : null;
  if (stem !== null && (FAULT_STEPS as readonly string[]).includes(stem)) return true;
  if ((TARGET_MOMENTS as readonly string[]).includes(point)) return true;
  const cas = /^cas:([A-Z_]+)->([A-Z_]+):(before|after)$/.exec(point);
  if (cas) return [cas[1], cas[2]].every((state) => (COMMIT_STATES as readonly string[]).includes(state!));
  return /^stmt:[a-z][a-z-]*\.[1-9][0-9]*:(before|after)$/.test(point);
}

/** Names a point in a literal, checked against the catalogue (for harness code that compares names). */
export function faultPoint<const P extends FaultPointName>(point: P): P {
  return point;
}
