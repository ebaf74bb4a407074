import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../contracts/errors.ts';
import { FAULT_PLAN_ENV, parseFaultPlan } from './fault-plan.ts';

describe('fault plan', () => {
  it('accepts several stops besides the first', () => {
    const plan = parseFaultPlan(
      JSON.stringify({ stop: { point: 'a', hit: 1 }, stops: [{ point: 'b', hit: 2 }] }),
    );
    expect(plan.stops).toEqual([{ point: 'b', hit: 2 }]);
  });

  it.each([
    [{ stops: { point: 'b', hit: 1 } }, `${FAULT_PLAN_ENV}.stops`],
    [{ stops: [{ point: 'b', hit: 0 }] }, `${FAULT_PLAN_ENV}.stops[0]`],
    [{ stops: [null] }, `${FAULT_PLAN_ENV}.stops[0]`],
    [{ stop: { hit: 1 } }, `${FAULT_PLAN_ENV}.stop`],
  ])('refuses a malformed stop %j, naming it', (plan, field) => {
    expect(() => parseFaultPlan(JSON.stringify(plan))).toThrow(
      expect.objectContaining({ code: ERROR_CODES.INVALID_INPUT, fields: { field } }),
    );
  });
});
