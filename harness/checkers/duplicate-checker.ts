import type { CheckRecord } from '../evidence/evidence-types.ts';
import { record, targetNotRead } from './check-record.ts';
import type { CheckContext, Checker } from './check-types.ts';

const NAME = 'duplicates';

/** No two target rows share a natural key (the harness's target table has no unique key). */
export const duplicateChecker: Checker = {
  name: NAME,
  check(context: CheckContext): CheckRecord {
    const { target } = context;
    if (target === null) return record(NAME, 'UNKNOWN', targetNotRead(context));
    if (target.duplicate_rows === 0)
      return record(NAME, 'PASS', `no duplicate natural keys in ${target.row_count} rows`);
    const keys = target.duplicate_keys;
    const example = keys.length > 0 ? `, e.g. key ${keys[0]}` : '';
    return record(
      NAME,
      'FAIL',
      `${target.duplicate_rows} duplicate rows over ${keys.length} natural keys${example}`,
    );
  },
};
