import { describe, expect, it } from 'vitest';
import type { AttemptRecord } from '../evidence/evidence-types.ts';
import { notReached } from './cell-runner.ts';

const attempt = (over: Partial<AttemptRecord>): AttemptRecord => ({
  pid: 1,
  exit_code: 0,
  signal: null,
  duration_ms: 5,
  started_at_ms: 0,
  last_point: null,
  role: 'first',
  ...over,
});

describe('a cell whose fault never fired', () => {
  it('says how each worker ended, by code and point only', () => {
    const detail = notReached([
      attempt({ role: 'race-1', exit_code: null, signal: 'SIGKILL', last_point: 'journal.read:before' }),
      attempt({ role: 'race-2', exit_code: 4, error_code: 'DPONE_JOURNAL_UNAVAILABLE' }),
    ]);
    expect(detail).toBe(
      'the planned fault point was not reached: the cell tested nothing ' +
        '(race-1: killed by SIGKILL, last point journal.read:before; ' +
        'race-2: exit 4 DPONE_JOURNAL_UNAVAILABLE, last point none)',
    );
  });

  it('keeps the plain sentence when no worker ran', () => {
    expect(notReached([])).toBe('the planned fault point was not reached: the cell tested nothing');
  });
});
