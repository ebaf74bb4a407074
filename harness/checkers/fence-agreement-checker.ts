import type { CheckRecord, FenceLocationReading } from '../evidence/evidence-types.ts';
import { record, targetNotRead } from './check-record.ts';
import type { CheckContext, Checker } from './check-types.ts';

const NAME = 'fence-agreement';

function shown(location: FenceLocationReading): string {
  return `${location.status}@${location.where}`;
}

/**
 * Loss cells: the target holds exactly the mutations its fence proves. The harness reads the fence
 * ITSELF, only to learn what it claims (every place it was or may be: its table, a renamed copy, a
 * moved view); the mutation count always comes from the harness's audit. A committed fence row
 * means exactly one mutation; fence rows that are all uncommitted mean none; two rows claiming a
 * commit are a second commit. With no fence row left (a dropped fence) there is no claim to hold
 * the target to, and the mutations check alone bounds it to one.
 */
export const fenceAgreementChecker: Checker = {
  name: NAME,
  applies: (context) => context.loss !== undefined,
  check(context: CheckContext): CheckRecord {
    const { target, loss } = context;
    if (!loss?.fence) return record(NAME, 'UNKNOWN', `fence not read: ${loss?.fence_error ?? 'no reading'}`);
    if (target === null) return record(NAME, 'UNKNOWN', targetNotRead(context));
    const mutations = target.mutations;
    const rows = loss.fence.locations.filter((location) => location.status !== null);
    const committed = rows.filter((location) => location.status === 'committed');
    if (committed.length > 1)
      return record(
        NAME,
        'FAIL',
        `${committed.length} fence rows claim a commit: ${committed.map(shown).join(', ')}`,
      );
    if (rows.length === 0) {
      const tables = loss.fence.locations.filter((location) => location.table).map((l) => l.where);
      return record(
        NAME,
        'PASS',
        `no fence row for the operation remains (fence tables: ${tables.join(', ') || 'none'}); the target shows ${mutations} mutation(s)`,
      );
    }
    if (committed.length === 1 && mutations !== 1)
      return record(
        NAME,
        'FAIL',
        `the fence proves one commit (${shown(committed[0]!)}) but the target shows ${mutations} mutation(s)`,
      );
    if (committed.length === 0 && mutations !== 0)
      return record(
        NAME,
        'FAIL',
        `the target shows ${mutations} mutation(s) but no fence row proves one (${rows.map(shown).join(', ')})`,
      );
    return record(
      NAME,
      'PASS',
      `the fence says ${rows.map(shown).join(', ')}; the target shows ${mutations} mutation(s), as it proves`,
    );
  },
};
