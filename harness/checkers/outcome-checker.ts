import type { CheckRecord } from '../evidence/evidence-types.ts';
import { journalNotRead, record, targetNotRead, who } from './check-record.ts';
import type { CheckContext, Checker } from './check-types.ts';
import { expectedLandings } from './mutation-checker.ts';

const NAME = 'outcome';

/**
 * No attempt reported success (exit 0) unless the target proves exactly one mutation (none for an
 * empty source partition) and the
 * journal it used reached COMPLETE; an unknown outcome is never success. A cell expected to complete must
 * end COMPLETE; an expected error code must have been reported by some attempt.
 */
export const outcomeChecker: Checker = {
  name: NAME,
  check(context: CheckContext): CheckRecord {
    const { target, journal, attempts, expectation } = context;
    const problems: string[] = [];
    const successes = attempts.filter((attempt) => attempt.exit_code === 0);
    const finalState = journal?.final_state ?? null;
    for (const attempt of successes) {
      // An empty partition lands nothing (an empty replace only removes rows: parity decides it).
      if (target !== null && target.mutations !== expectedLandings(target, expectation)) {
        problems.push(`${who(attempt)} exited 0 but the target shows ${target.mutations} mutations`);
      }
      // Another operation's attempt is backed by its own entry: its fault checks it.
      if (attempt.operation === 'second') continue;
      // A second deployment's attempt (fork) is backed by its own journal, not the cell's.
      const own = attempt.journal === 'fork' ? (context.loss?.fork_journal ?? null) : journal;
      const ownState = own?.final_state ?? null;
      if (own !== null && ownState !== 'COMPLETE') {
        const which = attempt.journal === 'fork' ? 'its (forked) journal' : 'the journal';
        problems.push(`${who(attempt)} exited 0 but ${which} ended ${ownState ?? 'with no entry'}`);
      }
    }
    if (expectation.end === 'complete' && journal !== null && finalState !== 'COMPLETE') {
      problems.push(`expected the operation to complete; the journal ended ${finalState ?? 'with no entry'}`);
    }
    if (
      expectation.error_code !== undefined &&
      !attempts.some((a) => a.error_code === expectation.error_code)
    ) {
      problems.push(`no attempt reported ${expectation.error_code}`);
    }
    if (problems.length > 0) return record(NAME, 'FAIL', problems.join('; '));
    if (target === null || journal === null) {
      const missing = target === null ? targetNotRead(context) : journalNotRead(context);
      return record(NAME, 'UNKNOWN', missing);
    }
    return record(
      NAME,
      'PASS',
      `${successes.length} of ${attempts.length} attempts reported success, each backed by the target`,
    );
  },
};
