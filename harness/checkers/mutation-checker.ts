import type { CheckRecord, TargetSnapshot } from '../evidence/evidence-types.ts';
import { record } from './check-record.ts';
import type { CheckContext, Checker } from './check-types.ts';

const NAME = 'mutations';

function shown(keys: readonly string[]): string {
  if (keys.length === 0) return '';
  const more = keys.length > 3 ? ` (+${keys.length - 3} more)` : '';
  return `; duplicated keys ${keys.slice(0, 3).join(', ')}${more}`;
}

/** Source rows of the loaded partition: one whole mutation's size (older evidence: every source row). */
export function batchRows(target: TargetSnapshot): number {
  return target.batch_rows ?? target.source_row_count;
}

/** Landings one successful load shows: one, or none when the source partition is empty. */
export function expectedLandings(target: TargetSnapshot): number {
  return batchRows(target) === 0 ? 0 : 1;
}

/** Whether the audit saw one whole mutation: one record covering every row of the batch. */
function oneWhole(target: TargetSnapshot): boolean {
  const records = target.audit?.mutation_records;
  if (!records) return true;
  return records.length === 1 && records[0]?.rows === batchRows(target);
}

/**
 * Exactly one mutation landed (from the harness audit, not the fence). For a cell expected to end
 * stopped (COMMIT_UNKNOWN, intent conflict) at most one, and never a replay.
 */
export const mutationChecker: Checker = {
  name: NAME,
  check(context: CheckContext): CheckRecord {
    const { target, expectation } = context;
    if (target === null)
      return record(NAME, 'UNKNOWN', `target not read: ${context.targetError ?? 'no snapshot'}`);
    const count = target.mutations;
    const runs = target.audit
      ? ` (audit: ${target.audit.mutation_records.map((r) => r.rows).join('+') || '0'} inserts)`
      : '';
    if (count >= 2) {
      return record(NAME, 'FAIL', `the mutation landed ${count} times${runs}${shown(target.duplicate_keys)}`);
    }
    if (batchRows(target) === 0) {
      // Nothing to load: any landing is a stale or foreign batch; what an empty replace removes
      // (and must keep) is for parity to decide.
      return count === 0
        ? record(NAME, 'PASS', 'the source partition is empty and nothing landed')
        : record(NAME, 'FAIL', `a mutation landed for an empty source partition${runs}`);
    }
    if (count === 0) {
      return expectation.end === 'stopped'
        ? record(NAME, 'PASS', 'no mutation landed; the operation stopped before the target')
        : record(NAME, 'FAIL', 'the mutation never landed, yet the cell was expected to complete');
    }
    if (!oneWhole(target)) {
      return record(NAME, 'UNKNOWN', `one partial mutation${runs} for ${batchRows(target)} source rows`);
    }
    return record(NAME, 'PASS', `exactly one mutation landed${runs}`);
  },
};
