import type { CheckRecord } from '../evidence/evidence-types.ts';
import { record, targetNotRead } from './check-record.ts';
import { describeDifference } from './first-difference.ts';
import type { CheckContext, Checker } from './check-types.ts';

const NAME = 'parity';

/**
 * The target holds exactly the source partition: same count and same order-independent digest.
 * A cell expected to end stopped may also leave the target empty. A failure names the first
 * differing natural key and how it differs, when the inspector recorded it (never row values).
 */
export const parityChecker: Checker = {
  name: NAME,
  check(context: CheckContext): CheckRecord {
    const { target, expectation } = context;
    if (target === null) return record(NAME, 'UNKNOWN', targetNotRead(context));
    if (target.row_parity)
      return record(NAME, 'PASS', `target equals source: ${target.row_count} rows, ${target.target_digest}`);
    if (expectation.end === 'stopped' && target.row_count === 0) {
      return record(NAME, 'PASS', 'target empty: the operation stopped before any mutation');
    }
    const first = target.first_difference
      ? `; first difference at ${describeDifference(target.first_difference)}`
      : '';
    return record(
      NAME,
      'FAIL',
      `target ${target.row_count} rows ${target.target_digest} differs from source ${target.source_row_count} rows ${target.source_digest}${first}`,
    );
  },
};
