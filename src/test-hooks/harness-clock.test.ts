import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../contracts/errors.ts';
import { SYSTEM_CLOCK } from '../ports/clock.ts';
import { CLOCK_OFFSET_ENV, clockFromEnv } from './harness-clock.ts';

describe('harness clock', () => {
  it('is the system clock unless the harness sets an offset', () => {
    expect(clockFromEnv({})).toBe(SYSTEM_CLOCK);
    // Outside the harness the variable is ignored: a stray setting cannot move a production lease.
    expect(clockFromEnv({ [CLOCK_OFFSET_ENV]: '60000' })).toBe(SYSTEM_CLOCK);
  });

  it('runs ahead by the offset under DPONE_HARNESS=1', () => {
    const clock = clockFromEnv({ DPONE_HARNESS: '1', [CLOCK_OFFSET_ENV]: '60000' });
    const before = Date.now();
    const now = clock.nowMs();
    expect(now).toBeGreaterThanOrEqual(before + 60_000);
    expect(now).toBeLessThanOrEqual(Date.now() + 60_000);
  });

  it.each(['-5', '1.5', 'soon', '86400001'])('refuses the offset %s, naming the variable', (value) => {
    expect(() => clockFromEnv({ DPONE_HARNESS: '1', [CLOCK_OFFSET_ENV]: value })).toThrow(
      expect.objectContaining({ code: ERROR_CODES.INVALID_INPUT, fields: { field: CLOCK_OFFSET_ENV } }),
    );
  });
});
