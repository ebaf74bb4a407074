import type { CheckRecord } from '../evidence/evidence-types.ts';
import { record } from './check-record.ts';
import type { CheckContext, Checker } from './check-types.ts';

const NAME = 'fence-not-recreated';

/**
 * Fence-loss cells whose fault emptied the fence's own place (dropped or renamed it) after the
 * journal recorded the fence prepared: after every retry the harness reads that place again, and it
 * must hold no fence row for the operation. A worker that wrote one there would have built a fence
 * that has forgotten the commit the lost one recorded, and its next answer ("not committed") is a
 * replay. The mutation count catches the replay itself; this check names the step that would
 * cause it, from the target's own catalog. An empty fence table created again (a target that
 * creates its fence table when it opens) holds no claim and is only reported.
 */
export const fenceRecreatedChecker: Checker = {
  name: NAME,
  applies: (context) => context.loss?.fence_removed === true,
  check(context: CheckContext): CheckRecord {
    const { loss } = context;
    if (!loss?.fence) return record(NAME, 'UNKNOWN', `fence not read: ${loss?.fence_error ?? 'no reading'}`);
    const [own] = loss.fence.locations;
    if (own === undefined) return record(NAME, 'UNKNOWN', 'the fence’s own place was not read');
    const after = context.attempts.length - 1;
    if (own.status !== null)
      return record(
        NAME,
        'FAIL',
        `the operation has a fence row (${own.status}) at ${own.where} again after the loss: a later worker recreated the fence it should have reported missing`,
      );
    const table = own.table
      ? 'an empty fence table is there again, with no row for the operation'
      : 'no fence table';
    return record(NAME, 'PASS', `${own.where} after ${after} later worker(s): ${table}`);
  },
};
