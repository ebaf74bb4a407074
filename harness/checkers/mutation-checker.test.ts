import { describe, expect, it } from 'vitest';
import type { TargetSnapshot } from '../evidence/evidence-types.ts';
import type { CheckContext } from './check-types.ts';
import { claimsChecker } from './claims-checker.ts';
import { mutationChecker } from './mutation-checker.ts';
import { outcomeChecker } from './outcome-checker.ts';
import { snapshotFromTrail } from './target-snapshot.ts';

/** A snapshot whose audit saw one landing per entry of `landed` (rows each). */
function snapshot(landed: readonly number[], expected: number, batch?: number): TargetSnapshot {
  const rows = landed.reduce((sum, n) => sum + n, 0);
  return snapshotFromTrail(
    {
      marker_kind: 'server-part',
      mutation_records: landed.map((n, i) => ({ marker: `part-${i}`, rows: n })),
      audited_inserts: rows,
      target_row_keys: [],
      target_row_digests: [],
    },
    { row_count: expected, digest: 'sha256:x', ...(batch !== undefined ? { batch_rows: batch } : {}) },
  );
}

function check(target: TargetSnapshot) {
  const context: CheckContext = { target, journal: null, attempts: [], expectation: { end: 'complete' } };
  return mutationChecker.check(context);
}

describe('mutation checker', () => {
  it('measures one whole mutation by the loaded partition, not by the rows the target keeps', () => {
    // replace-partition: 20 rows loaded, 2 rows of a neighbouring partition kept → 22 expected.
    expect(check(snapshot([20], 22, 20)).verdict).toBe('PASS');
    expect(check(snapshot([19], 22, 20)).verdict).toBe('UNKNOWN');
    expect(check(snapshot([20, 20], 22, 20)).verdict).toBe('FAIL');
    // Older evidence without batch_rows: the expected rows are the batch.
    expect(check(snapshot([20], 20)).verdict).toBe('PASS');
  });

  it('on an empty source partition passes only when nothing landed', () => {
    expect(check(snapshot([], 2, 0)).verdict).toBe('PASS');
    const stale = check(snapshot([3], 2, 0));
    expect(stale.verdict).toBe('FAIL');
    expect(stale.detail).toContain('empty source partition');
  });
});

describe('outcome and claims on an empty source partition', () => {
  const exited = {
    role: 'settle',
    pid: 7,
    exit_code: 0,
    mutated: true,
  } as unknown as CheckContext['attempts'][number];
  const journal = { final_state: 'COMPLETE' } as unknown as CheckContext['journal'];
  const context = (target: TargetSnapshot): CheckContext => ({
    target,
    journal,
    attempts: [exited],
    expectation: { end: 'complete' },
  });

  it('accept a success with nothing landed only when the batch is empty', () => {
    expect(outcomeChecker.check(context(snapshot([], 2, 0))).verdict).toBe('PASS');
    expect(claimsChecker.check(context(snapshot([], 2, 0))).verdict).toBe('PASS');
    expect(outcomeChecker.check(context(snapshot([], 22, 20))).verdict).toBe('FAIL');
    expect(claimsChecker.check(context(snapshot([], 22, 20))).verdict).toBe('FAIL');
    expect(outcomeChecker.check(context(snapshot([2], 2, 0))).verdict).toBe('FAIL');
  });
});
