import { describe, expect, it } from 'vitest';
import { crashCells } from './harness-cost.ts';

const attempt = (role: string) => ({ role, duration_ms: 1 });
const cell = (id: string, kind: string, ms: number, roles: string[], variant: string | null = null) => ({
  id,
  fault: { kind },
  verdict: 'PASS',
  duration_ms: ms,
  attempts: roles.map(attempt),
  target: null,
  variant,
});

describe('crashCells (what the harness-cost ratio times)', () => {
  it('takes the medians of real crash cells only, and counts a restored first attempt as no spawn', () => {
    const figures = crashCells({
      verdict: 'PASS',
      cells: [
        cell('a', 'crash', 300, ['first-recorded', 'recovery', 'settle']),
        cell('b', 'crash', 500, ['first-recorded', 'recovery', 'settle']),
        cell('c', 'crash', 200, ['first-recorded', 'settle']),
        // neither an unsafe-variant run nor another fault's cell may move the figures
        cell('v', 'crash', 9_000, ['first', 'settle'], 'no-fence'),
        cell('r', 'race', 9_000, ['race-1', 'race-2']),
      ],
    });
    expect(figures).toEqual({ cells: 3, median_ms: 300, attempts_median: 3, spawns_median: 2 });
  });

  it('refuses evidence without a crash cell instead of timing nothing', () => {
    expect(() => crashCells({ verdict: 'PASS', cells: [cell('r', 'race', 10, ['race-1'])] })).toThrow(
      /no crash cell/,
    );
  });
});
