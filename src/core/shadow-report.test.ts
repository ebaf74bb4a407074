import { describe, expect, it } from 'vitest';
import type { ShadowAttempt } from '../ports/shadow-journal.ts';
import { wouldDecide } from './shadow-decision.ts';
import { shadowReport } from './shadow-report.ts';

const op = (c: string) => `sha256:${c.repeat(64)}`;

function attempt(over: Partial<ShadowAttempt> & { attemptId: number; tryNumber: number }): ShadowAttempt {
  return {
    operationId: op('a'),
    intentDigest: op('1'),
    workloadId: 'w',
    route: 'embedded-to-embedded',
    targetIdentity: 'embedded:events',
    partitionColumn: 'day',
    partitionValue: '2026-07-18',
    holder: 'h',
    policyDigest: op('d'),
    startedAt: '2026-07-18T00:00:00.000Z',
    wouldDecide: 'would write',
    endedAt: '2026-07-18T00:00:01.000Z',
    outcome: 'committed',
    rowsWritten: 5,
    ...over,
  };
}

describe('wouldDecide: what enforcement would have done at an attempt', () => {
  it('refuses a second write, stops on an unknown outcome, refuses another intent', () => {
    expect(wouldDecide(op('1'), [])).toBe('would write');
    expect(wouldDecide(op('1'), [attempt({ attemptId: 1, tryNumber: 1 })])).toBe(
      'refused: already committed by attempt 1',
    );
    expect(
      wouldDecide(op('1'), [attempt({ attemptId: 1, tryNumber: 1, outcome: null, endedAt: null })]),
    ).toMatch(/^would stop: outcome unknown \(attempt 1 never recorded an end/);
    expect(wouldDecide(op('2'), [attempt({ attemptId: 1, tryNumber: 1 })])).toMatch(
      /^refused: intent conflict/,
    );
    expect(wouldDecide(op('1'), [attempt({ attemptId: 1, tryNumber: 1, outcome: 'failed' })])).toMatch(
      /^would write \(1 earlier/,
    );
  });
});

describe('shadowReport', () => {
  it('counts duplicates, possible duplicates, unknowns, collisions and shared partitions', () => {
    const report = shadowReport(
      [
        attempt({ attemptId: 1, tryNumber: 1 }),
        attempt({ attemptId: 2, tryNumber: 2 }),
        attempt({ attemptId: 3, tryNumber: 3 }),
        attempt({ attemptId: 4, tryNumber: 1, operationId: op('b'), outcome: null, endedAt: null }),
        attempt({ attemptId: 5, tryNumber: 2, operationId: op('b') }),
        attempt({ attemptId: 6, tryNumber: 1, operationId: op('c'), outcome: 'failed' }),
        attempt({
          attemptId: 7,
          tryNumber: 2,
          operationId: op('c'),
          intentDigest: op('2'),
          outcome: 'failed',
        }),
      ],
      'j',
      null,
    );
    expect(report.totals).toEqual({
      operations: 3,
      attempts: 7,
      duplicate_operations: 1,
      duplicate_writes: 2,
      possible_duplicate_operations: 1,
      unknown_outcomes: 1,
      identity_collisions: 1,
      shared_partitions: 1,
    });
    expect(report.shared_partitions[0]!.operation_ids).toEqual([op('a'), op('b')]);
    expect(report.possible_duplicates.map((o) => o.operation_id)).toEqual([op('b')]);
  });

  it('an operation written once and a failed retry is no duplicate', () => {
    const report = shadowReport(
      [attempt({ attemptId: 1, tryNumber: 1, outcome: 'failed' }), attempt({ attemptId: 2, tryNumber: 2 })],
      'j',
      null,
    );
    expect(report.totals.duplicate_operations + report.totals.possible_duplicate_operations).toBe(0);
  });
});
