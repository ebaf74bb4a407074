import type { CheckRecord } from '../evidence/evidence-types.ts';
import { record, targetNotRead, who } from './check-record.ts';
import type { CheckContext, Checker } from './check-types.ts';
import { expectedLandings } from './mutation-checker.ts';

const NAME = 'claims';

/**
 * What the attempts claimed about their own writes: at most one attempt ever claims it wrote the
 * mutation (`mutated: true`), and none claims it unless the target (the harness's own audit)
 * shows a mutation. A retry that lost its journal and reports a fresh write is caught here even
 * when the target held the data already.
 */
export const claimsChecker: Checker = {
  name: NAME,
  check(context: CheckContext): CheckRecord {
    const { target, attempts } = context;
    // A write the cell's own fault destroyed afterwards (a failover that lost it) is not on the target.
    const claims = attempts.filter((attempt) => attempt.mutated === true && attempt.write_lost !== true);
    const problems: string[] = [];
    // One claim per operation at most (a second operation on the partition claims its own write).
    for (const operation of [undefined, 'second'] as const) {
      const own = claims.filter((attempt) => attempt.operation === operation);
      if (own.length > 1)
        problems.push(`${own.length} attempts each claimed their own write: ${own.map(who).join(', ')}`);
    }
    if (claims.length > 0 && target === null) return record(NAME, 'UNKNOWN', targetNotRead(context));
    // An empty partition's write (an empty replace removing rows) lands no rows to count.
    if (target !== null && target.mutations === 0 && expectedLandings(target) > 0)
      for (const claim of claims) problems.push(`${who(claim)} claimed a write, but the target shows none`);
    if (problems.length > 0) return record(NAME, 'FAIL', problems.join('; '));
    const shown = target === null ? 'target not read' : `the target shows ${target.mutations}`;
    return record(NAME, 'PASS', `${claims.length} of ${attempts.length} attempts claimed a write; ${shown}`);
  },
};
