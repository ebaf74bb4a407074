import type { CellExpectation, CheckRecord, TargetSnapshot } from '../evidence/evidence-types.ts';
import { record, targetNotRead } from './check-record.ts';
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

/**
 * Landings the cell's successful loads show: one per operation loading the partition (usually
 * one), or none when the source partition is empty.
 */
export function expectedLandings(target: TargetSnapshot, expectation?: CellExpectation): number {
  return batchRows(target) === 0 ? 0 : (expectation?.operations ?? 1);
}

/** Whether the audit saw `n` whole mutations: n records, each covering every row of the batch. */
function allWhole(target: TargetSnapshot, n: number): boolean {
  const records = target.audit?.mutation_records;
  if (!records) return true;
  return records.length === n && records.every((r) => r.rows === batchRows(target));
}

/**
 * Exactly one mutation landed per operation the cell runs on its partition (from the harness
 * audit, not the fence). For a cell expected to end stopped (COMMIT_UNKNOWN, intent conflict) at
 * most one, and never a replay.
 */
export const mutationChecker: Checker = {
  name: NAME,
  check(context: CheckContext): CheckRecord {
    const { target, expectation } = context;
    if (target === null) return record(NAME, 'UNKNOWN', targetNotRead(context));
    const count = target.mutations;
    const operations = expectation.operations ?? 1;
    const runs = target.audit
      ? ` (audit: ${target.audit.mutation_records.map((r) => r.rows).join('+') || '0'} inserts)`
      : '';
    if (count > operations) {
      const per = operations === 1 ? '' : ` for ${operations} operations`;
      return record(
        NAME,
        'FAIL',
        `the mutation landed ${count} times${per}${runs}${shown(target.duplicate_keys)}`,
      );
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
    if (count < operations && expectation.end === 'complete')
      return record(NAME, 'FAIL', `${count} of ${operations} operations' mutations landed${runs}`);
    if (!allWhole(target, count)) {
      return record(NAME, 'UNKNOWN', `a partial mutation${runs} for ${batchRows(target)} source rows`);
    }
    return operations === 1
      ? record(NAME, 'PASS', `exactly one mutation landed${runs}`)
      : record(NAME, 'PASS', `exactly one mutation per operation landed (${count})${runs}`);
  },
};
