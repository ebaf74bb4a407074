import { describe, expect, it } from 'vitest';
import type { CellEvidence } from '../evidence/evidence-types.ts';
import { buildSensitivity, runVerdict } from './sensitivity.ts';

function cell(
  id: string,
  variant: string | null,
  verdict: CellEvidence['verdict'],
  failing: string[] = [],
): CellEvidence {
  return {
    id,
    scenario: 's',
    route: 'sqlite',
    variant,
    fault: { kind: 'crash' },
    verdict,
    checks: failing.map((name) => ({ name, verdict: 'FAIL' as const, detail: 'x' })),
    attempts: [],
    target: null,
    journal: null,
    reproduce: '',
    duration_ms: 0,
  };
}

describe('sensitivity bookkeeping', () => {
  it('counts a variant caught only by a FAIL that shows the duplicate or extra mutation', () => {
    const cells = [
      cell('a/2', 'no-fence', 'FAIL', ['mutations', 'duplicates']),
      cell('a/1', 'no-fence', 'FAIL', ['duplicates']),
      cell('b/1', 'query-lies', 'FAIL', ['journal-history']),
      cell('b/2', 'query-lies', 'PASS'),
    ];
    expect(buildSensitivity(cells)).toEqual([
      { variant: 'no-fence', caught: true, cells_failed: 2, cells_run: 2, example_cell: 'a/1' },
      { variant: 'query-lies', caught: false, cells_failed: 1, cells_run: 2 },
    ]);
  });

  it('counts a partial mutation the target showed right after a kill (atomic-visibility) as caught', () => {
    const cells = [
      cell('r/d1/target.commit:before#1', 'delete-outside-guard', 'FAIL', ['atomic-visibility']),
      cell('r/d1/target.mutate:begin#1', 'delete-outside-guard', 'PASS'),
    ];
    expect(buildSensitivity(cells)[0]).toMatchObject({
      variant: 'delete-outside-guard',
      caught: true,
      example_cell: 'r/d1/target.commit:before#1',
    });
  });

  it('lists a planned variant with no cell as uncaught', () => {
    expect(buildSensitivity([], ['split-marker'])).toEqual([
      { variant: 'split-marker', caught: false, cells_failed: 0, cells_run: 0 },
    ]);
  });

  it('makes the run the worst real cell, FAIL when a variant survived, UNVERIFIED when it never ran', () => {
    const real = [cell('r/1', null, 'PASS'), cell('r/2', null, 'UNKNOWN')];
    const caught = [cell('v/1', 'no-fence', 'FAIL', ['mutations'])];
    expect(runVerdict([...real, ...caught], buildSensitivity(caught))).toBe('UNKNOWN');
    const survived = [cell('v/2', 'ignore-epoch', 'PASS')];
    expect(runVerdict([cell('r/1', null, 'PASS'), ...survived], buildSensitivity(survived))).toBe('FAIL');
    const unrun = [cell('v/3', 'ignore-epoch', 'UNVERIFIED')];
    expect(runVerdict([cell('r/3', null, 'UNVERIFIED'), ...unrun], buildSensitivity(unrun))).toBe(
      'UNVERIFIED',
    );
    expect(runVerdict([], [])).toBe('UNVERIFIED');
  });
});
