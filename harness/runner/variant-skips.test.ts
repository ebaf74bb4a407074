import { describe, expect, it } from 'vitest';
import { checkedCell } from '../checkers/fixtures/checked-cell.ts';
import type { PlannedCell } from '../plan/cell.ts';
import { VariantSkips } from './variant-skips.ts';

const planned = (id: string, variant: string | null) => ({ id, variant }) as unknown as PlannedCell;

/** A finished cell: FAIL on the checks named, PASS when none. */
const finished = (id: string, variant: string | null, failing: string[]) =>
  checkedCell(id, variant, failing.length > 0 ? 'FAIL' : 'PASS', failing);

describe('VariantSkips', () => {
  it('runs every cell of a variant until one catches it, then lists the rest as not run', () => {
    const skips = new VariantSkips(true);
    expect(skips.skipFor(planned('a@no-fence', 'no-fence'))).toBeNull();
    skips.record(finished('a@no-fence', 'no-fence', []));
    // A FAIL on a check that does not read storage is not a catch: the next cell still runs.
    skips.record(finished('b@no-fence', 'no-fence', ['journal-history']));
    expect(skips.skipFor(planned('c@no-fence', 'no-fence'))).toBeNull();
    skips.record(finished('c@no-fence', 'no-fence', ['duplicates']));
    skips.record(finished('d@no-fence', 'no-fence', ['mutations']));
    expect(skips.skipFor(planned('e@no-fence', 'no-fence'))).toEqual({
      id: 'e@no-fence',
      variant: 'no-fence',
      caught_by: 'c@no-fence',
    });
    // Other variants and real cells are untouched.
    expect(skips.skipFor(planned('e@split-marker', 'split-marker'))).toBeNull();
    expect(skips.skipFor(planned('e', null))).toBeNull();
  });

  it('skips nothing when every variant cell is asked for', () => {
    const skips = new VariantSkips(false);
    skips.record(finished('c@no-fence', 'no-fence', ['duplicates']));
    expect(skips.skipFor(planned('e@no-fence', 'no-fence'))).toBeNull();
  });
});
