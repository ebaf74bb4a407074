import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../contracts/errors.ts';
import { FAULT_PLAN_ENV, PlannedFaultPoints, parseFaultPlan } from './fault-plan.ts';

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

describe('fault plan timings', () => {
  it('appends each point passed with a non-decreasing time, beside the trace', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fault-plan-'));
    const points = new PlannedFaultPoints({ trace: join(dir, 'trace'), timings: join(dir, 'timings') });
    for (const point of ['a', 'b', 'a']) await points.hit(point);
    const lines = readFileSync(join(dir, 'timings'), 'utf8').trimEnd().split('\n');
    expect(lines.map((line) => line.split('\t')[0])).toEqual(['a', 'b', 'a']);
    const times = lines.map((line) => Number(line.split('\t')[1]));
    expect(times.every((ms, index) => Number.isFinite(ms) && ms >= (times[index - 1] ?? 0))).toBe(true);
    expect(readFileSync(join(dir, 'trace'), 'utf8')).toBe('a\nb\na\n');
  });
});

describe('fault plan statement points', () => {
  it('ignores statement points unless the plan observes them; then records them, never in timings', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fault-plan-'));
    const off = new PlannedFaultPoints({ trace: join(dir, 'off') });
    expect(off.statements).toBe(false);
    for (const point of ['a', 'stmt:mutate.1:before', 'b']) await off.hit(point);
    expect(readFileSync(join(dir, 'off'), 'utf8')).toBe('a\nb\n');
    const on = new PlannedFaultPoints({
      trace: join(dir, 'on'),
      timings: join(dir, 'times'),
      statements: true,
    });
    expect(on.statements).toBe(true);
    for (const point of ['a', 'stmt:mutate.1:before', 'stmt:mutate.1:after', 'b']) await on.hit(point);
    expect(readFileSync(join(dir, 'on'), 'utf8')).toBe('a\nstmt:mutate.1:before\nstmt:mutate.1:after\nb\n');
    expect(readFileSync(join(dir, 'times'), 'utf8')).not.toContain('stmt:');
  });

  it('refuses a statements flag that is not a boolean', () => {
    expect(() => parseFaultPlan(JSON.stringify({ statements: 'yes' }))).toThrow(
      expect.objectContaining({ fields: { field: `${FAULT_PLAN_ENV}.statements` } }),
    );
  });
});
