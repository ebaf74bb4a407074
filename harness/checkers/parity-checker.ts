import type { CheckRecord } from '../evidence/evidence-types.ts';
import { record } from './check-record.ts';
import type { CheckContext, Checker } from './check-types.ts';

const NAME = 'parity';

/**
 * The target holds exactly the source partition: same count and same order-independent digest.
 * A cell expected to end stopped may also leave the target empty.
 */
export const parityChecker: Checker = {
  name: NAME,
  check(context: CheckContext): CheckRecord {
    const { target, expectation } = context;
    if (target === null)
      return record(NAME, 'UNKNOWN', `target not read: ${context.targetError ?? 'no snapshot'}`);
    if (target.row_parity)
      return record(NAME, 'PASS', `target equals source: ${target.row_count} rows, ${target.target_digest}`);
    if (expectation.end === 'stopped' && target.row_count === 0) {
      return record(NAME, 'PASS', 'target empty: the operation stopped before any mutation');
    }
    return record(
      NAME,
      'FAIL',
      `target ${target.row_count} rows ${target.target_digest} differs from source ${target.source_row_count} rows ${target.source_digest}`,
    );
  },
};
