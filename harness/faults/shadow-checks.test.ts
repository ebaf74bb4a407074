import { describe, expect, it } from 'vitest';
import type { AttemptRecord } from '../evidence/evidence-types.ts';
import type { ShadowReportFigures } from './shadow-checks.ts';
import { parityCheck, reportCheck } from './shadow-checks.ts';

const attempt = (role: string, exit: number | null): AttemptRecord => ({
  pid: 1,
  exit_code: exit,
  signal: exit === null ? 'SIGKILL' : null,
  duration_ms: 1,
  last_point: null,
  role,
});

const report = (figures: Partial<ShadowReportFigures>): ShadowReportFigures => ({
  exitCode: 0,
  errorCode: null,
  attempts: 2,
  duplicateOperations: 0,
  duplicateWrites: 0,
  possibleDuplicates: 0,
  unknownOutcomes: 0,
  collisions: 0,
  ...figures,
});

describe('shadow cell checks: the target decides', () => {
  it('parity: the target holds what legacy writes, every attempt not killed exits 0', () => {
    const two = [attempt('first', 0), attempt('retry', 0)];
    expect(parityCheck('shadow', two, 2, 2).verdict).toBe('PASS');
    expect(parityCheck('shadow', two, 1, 2).verdict).toBe('FAIL');
    expect(parityCheck('shadow', [attempt('first', 0), attempt('retry', 12)], 1, 1).verdict).toBe('FAIL');
  });

  it('report: extra writes equal the extra mutations; a miss or a false alarm fails', () => {
    expect(reportCheck('shadow', 2, 2, report({ duplicateWrites: 1 }), false).verdict).toBe('PASS');
    expect(
      reportCheck(
        'shadow',
        2,
        2,
        report({ duplicateWrites: 0, possibleDuplicates: 1, unknownOutcomes: 2 }),
        false,
      ).verdict,
    ).toBe('FAIL');
    expect(reportCheck('shadow', 2, 1, report({ duplicateWrites: 1 }), false).verdict).toBe('FAIL');
    expect(reportCheck('shadow', 2, 2, report({ attempts: 1, duplicateWrites: 1 }), false).verdict).toBe(
      'FAIL',
    );
    expect(reportCheck('shadow', 2, 2, report({ duplicateWrites: 1, collisions: 1 }), false).verdict).toBe(
      'FAIL',
    );
  });

  it('report: only a kill between the commit and its record may leave the duplicate as possible', () => {
    const possible = report({ duplicateWrites: 0, possibleDuplicates: 1, unknownOutcomes: 1 });
    expect(reportCheck('shadow', 2, 2, possible, true).verdict).toBe('PASS');
    expect(reportCheck('shadow', 2, 2, report({ duplicateWrites: 0 }), true).verdict).toBe('FAIL');
    expect(reportCheck('shadow', 2, 2, report({ exitCode: 10, duplicateWrites: null }), false).verdict).toBe(
      'UNKNOWN',
    );
  });

  it('legacy: no shadow record at all', () => {
    const none = report({
      exitCode: 10,
      errorCode: 'DPONE_TARGET_COMMIT_JOURNAL_UNAVAILABLE',
      attempts: null,
    });
    expect(reportCheck('legacy', 2, 2, none, false).verdict).toBe('PASS');
    expect(reportCheck('legacy', 2, 2, report({ attempts: 0 }), false).verdict).toBe('PASS');
    expect(reportCheck('legacy', 2, 2, report({ attempts: 2 }), false).verdict).toBe('FAIL');
  });
});
