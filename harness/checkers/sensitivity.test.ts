import { describe, expect, it } from 'vitest';
import { checkedCell } from './fixtures/checked-cell.ts';
import { buildSensitivity, runVerdict, unjustifiedSkips } from './sensitivity.ts';

const cell = checkedCell;

describe('sensitivity bookkeeping', () => {
  it('counts a variant caught only by a FAIL that shows the duplicate or extra mutation', () => {
    const cells = [
      cell('a/2', 'no-fence', 'FAIL', ['mutations', 'duplicates']),
      cell('a/1', 'no-fence', 'FAIL', ['duplicates']),
      cell('b/1', 'query-lies', 'FAIL', ['journal-history']),
      cell('b/2', 'query-lies', 'PASS'),
    ];
    expect(buildSensitivity(cells)).toEqual([
      {
        variant: 'no-fence',
        caught: true,
        state: 'killed',
        cells_failed: 2,
        cells_run: 2,
        example_cell: 'a/1',
        killed_by: ['duplicates', 'mutations'],
      },
      { variant: 'query-lies', caught: false, state: 'survived', cells_failed: 1, cells_run: 2 },
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

  it('lists a planned variant with no cell as uncaught and not run, never survived', () => {
    expect(buildSensitivity([], ['split-marker'])).toEqual([
      {
        variant: 'split-marker',
        caught: false,
        state: 'not-run',
        cells_failed: 0,
        cells_run: 0,
        not_run_reason: 'no cell of it was planned',
      },
    ]);
  });

  it('counts only the cells that ran: a variant whose cells could not run is not run, with their reason', () => {
    const unrun = { ...cell('v/1', 'no-seal', 'UNVERIFIED') };
    const why = { name: 'environment', verdict: 'UNVERIFIED' as const, detail: 'no Docker engine' };
    const cells = [
      { ...unrun, checks: [why] },
      { ...cell('v/2', 'no-seal', 'UNVERIFIED'), checks: [why] },
      { ...cell('w/1', 'no-fence', 'UNVERIFIED'), checks: [why] },
      cell('w/2', 'no-fence', 'PASS'),
    ];
    expect(buildSensitivity(cells)).toEqual([
      {
        variant: 'no-fence',
        caught: false,
        state: 'survived',
        cells_failed: 0,
        cells_run: 1,
        cells_not_run: 1,
      },
      {
        variant: 'no-seal',
        caught: false,
        state: 'not-run',
        cells_failed: 0,
        cells_run: 0,
        cells_not_run: 2,
        not_run_reason: 'no Docker engine',
      },
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

describe('variant cells not run once their variant is caught', () => {
  const catcher = cell('c/1@no-fence', 'no-fence', 'FAIL', ['mutations']);
  const notCatching = cell('c/2@no-fence', 'no-fence', 'FAIL', ['journal-history']);
  const passing = cell('c/3@no-fence', 'no-fence', 'PASS');

  it('counts the skipped cells per variant and leaves the catch to the cells that ran', () => {
    const skipped = [
      { id: 'c/4@no-fence', variant: 'no-fence', caught_by: 'c/1@no-fence' },
      { id: 'c/5@no-fence', variant: 'no-fence', caught_by: 'c/1@no-fence' },
    ];
    expect(buildSensitivity([catcher, passing], ['no-fence', 'split-marker'], skipped)).toEqual([
      {
        variant: 'no-fence',
        caught: true,
        state: 'killed',
        cells_failed: 1,
        cells_run: 2,
        cells_skipped: 2,
        example_cell: 'c/1@no-fence',
        killed_by: ['mutations'],
      },
      {
        variant: 'split-marker',
        caught: false,
        state: 'not-run',
        cells_failed: 0,
        cells_run: 0,
        not_run_reason: 'no cell of it was planned',
      },
    ]);
    expect(unjustifiedSkips([catcher, passing], skipped)).toEqual([]);
  });

  it('refuses a skip no catching cell of the evidence justifies', () => {
    const cells = [catcher, notCatching, passing];
    const problems = (skip: { id: string; variant: string; caught_by: string }) =>
      unjustifiedSkips(cells, [skip]);
    // Named cell absent, a cell that FAILed on no storage check, a PASS, another variant's cell.
    expect(problems({ id: 'c/9@no-fence', variant: 'no-fence', caught_by: 'c/8@no-fence' })[0]).toMatch(
      /not in the evidence/,
    );
    expect(problems({ id: 'c/9@no-fence', variant: 'no-fence', caught_by: 'c/2@no-fence' })[0]).toMatch(
      /does not catch no-fence/,
    );
    expect(problems({ id: 'c/9@no-fence', variant: 'no-fence', caught_by: 'c/3@no-fence' })[0]).toMatch(
      /does not catch no-fence/,
    );
    expect(
      unjustifiedSkips(
        [...cells, cell('d/1@split-marker', 'split-marker', 'FAIL', ['mutations'])],
        [{ id: 'c/9@no-fence', variant: 'no-fence', caught_by: 'd/1@split-marker' }],
      )[0],
    ).toMatch(/does not catch no-fence/);
    // A real cell, or one of another variant, is never skippable; a run cell is not skipped too.
    expect(problems({ id: 'c/9', variant: 'no-fence', caught_by: 'c/1@no-fence' })[0]).toMatch(
      /not a cell of variant/,
    );
    expect(problems({ id: 'c/3@no-fence', variant: 'no-fence', caught_by: 'c/1@no-fence' })[0]).toMatch(
      /both skipped and run/,
    );
  });
});
