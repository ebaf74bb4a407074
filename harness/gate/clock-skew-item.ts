import { AUDIT_TRUTH, LEASE_BOUND } from '../evidence/check-names.ts';
import type { AcceptanceItem } from './acceptance-item.ts';
import { allPass, checkPassed, decidedBy } from './cell-verdicts.ts';

/** The cases the item needs, each by at least one cell (cell.fault.phase). */
const CASES = ['holder-dies', 'challenger', 'operator'] as const;

/**
 * Issue 30's clock item: skewed clocks never wedge an operation past what the journal's clock
 * promises, never give a second mutation, and never make an operator's audit state what the
 * target contradicts. Decided by the clock-skew cells (libfaketime): a skewed holder dying at
 * every journal transition (each with `lease-bound` PASS, measured from a normal retrier's tries),
 * a skewed challenger racing a live holder, an operator with a skewed clock applying each action
 * during a live commit (each with `audit-truth` PASS). Without libfaketime the cells are
 * UNVERIFIED, and so is the item; no cell at all is FAIL.
 */
export const clockSkewItem: AcceptanceItem = {
  id: 'clock-skew',
  text: 'a worker or operator whose clock is wrong never wedges an operation past its TTL bound, never gives a second mutation, and never makes an audit statement the target contradicts',
  evaluate(cells) {
    const clock = cells.filter((cell) => cell.fault.kind === 'clock-skew');
    const failed = allPass(clock, 'clock-skew');
    if (failed) return failed;
    const missing = CASES.filter((phase) => !clock.some((cell) => cell.fault.phase === phase));
    if (missing.length > 0)
      return {
        status: 'FAIL',
        ...decidedBy(clock),
        detail: `no clock-skew cell of case(s) ${missing.join(', ')}: the item is not decided`,
      };
    const bounded = clock.filter((cell) => cell.fault.phase === 'holder-dies' || cell.fault.phase === 'jump');
    const unmeasured = bounded.filter((cell) => !checkPassed(cell, LEASE_BOUND));
    const operators = clock.filter((cell) => cell.fault.phase === 'operator');
    const unaudited = operators.filter((cell) => !checkPassed(cell, AUDIT_TRUTH));
    const lacking = [...unmeasured, ...unaudited];
    if (lacking.length > 0)
      return {
        status: 'FAIL',
        ...decidedBy(lacking),
        detail: `${lacking[0]!.id} has no passing ${unmeasured.length > 0 ? LEASE_BOUND : AUDIT_TRUTH} check`,
      };
    const offsets = [...new Set(bounded.map((cell) => String(cell.fault.offset)))].sort();
    return {
      status: 'PASS',
      ...decidedBy(clock),
      detail:
        `${bounded.length} dying-holder and clock-jump cells (offsets ${offsets.join(', ')}) each within the journal's TTL bound, ` +
        `${clock.filter((cell) => cell.fault.phase === 'challenger').length} skewed challengers and ` +
        `${operators.length} skewed operator actions with every audit statement true; each one mutation`,
    };
  },
};
