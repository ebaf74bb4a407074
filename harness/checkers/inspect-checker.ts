import { ERROR_CODES, EXIT_CODES } from '../../src/contracts/errors.ts';
import { COMMITTED_STATES, isCommitState } from '../../src/contracts/states.ts';
import type { CheckRecord } from '../evidence/evidence-types.ts';
import { journalNotRead, record, targetNotRead } from './check-record.ts';
import type { CheckContext, Checker } from './check-types.ts';

const NAME = 'inspect-explains';

/**
 * Loss cells: the final state is one `dpone recovery target-commit inspect` explains, and inspect
 * changed nothing. Its assessment must not contradict the target (the harness's count): not
 * `complete` unless the target shows the mutation, not `retry-safe` while it does, and a journal
 * claiming a commit the target lacks must be flagged `inconsistent`. A stopped end (needs-evidence,
 * inconsistent, operator-action, run-reconciles) is a correct end after a loss. Inspect may fail
 * only when the cell's journal holds no entry for the operation (it was lost and never re-created).
 */
export const inspectChecker: Checker = {
  name: NAME,
  applies: (context) => context.loss !== undefined,
  check(context: CheckContext): CheckRecord {
    const { target, journal, loss } = context;
    const inspect = loss?.inspect;
    if (!inspect) return record(NAME, 'UNKNOWN', 'inspect did not run');
    if (target === null) return record(NAME, 'UNKNOWN', targetNotRead(context));
    const mutations = target.mutations;
    const problems: string[] = [];
    if (inspect.journal_unchanged === false)
      problems.push('inspect changed the journal (it must be read-only)');
    const assessment = inspect.assessment;
    // inspect exits 29 exactly when it finds journal and fence inconsistent (and still shows its view).
    const diverged = inspect.exit_code === EXIT_CODES[ERROR_CODES.DIVERGED];
    if ((inspect.exit_code !== 0 && !diverged) || assessment === null) {
      if (journal === null) return record(NAME, 'UNKNOWN', journalNotRead(context));
      if (journal.final_state !== null)
        problems.push(
          `inspect failed (exit ${inspect.exit_code}, ${inspect.error_code ?? 'no code'}) although the journal holds the operation (${journal.final_state})`,
        );
      if (problems.length > 0) return record(NAME, 'FAIL', problems.join('; '));
      return record(
        NAME,
        'PASS',
        `inspect reports ${inspect.error_code ?? `exit ${inspect.exit_code}`}: the journal holds no entry for the operation; the target shows ${mutations} mutation(s)`,
      );
    }
    const { kind, state } = assessment;
    if (diverged !== (kind === 'inconsistent'))
      problems.push(`inspect said ${kind} with exit ${inspect.exit_code} (29 exactly when inconsistent)`);
    if (kind === 'complete' && mutations !== 1)
      problems.push(`inspect says complete but the target shows ${mutations} mutation(s)`);
    if (kind === 'retry-safe' && mutations !== 0)
      problems.push(`inspect says a retry is safe (no mutation began) but the target shows ${mutations}`);
    if (isCommitState(state) && COMMITTED_STATES.has(state) && mutations === 0 && kind !== 'inconsistent')
      problems.push(`the journal says ${state} while the target shows no mutation, and inspect says ${kind}`);
    if (problems.length > 0) return record(NAME, 'FAIL', problems.join('; '));
    return record(
      NAME,
      'PASS',
      `inspect: ${kind} (${state} v${assessment.version}, fence ${assessment.fence}); the target shows ${mutations} mutation(s)${inspect.journal_unchanged ? '; journal unchanged' : ''}`,
    );
  },
};
