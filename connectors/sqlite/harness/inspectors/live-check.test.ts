import { describe, expect, it } from 'vitest';
import { DponeError, ERROR_CODES } from '../../../../src/contracts/errors.ts';
import type { TargetSnapshot } from '../../../../harness/evidence/evidence-types.ts';
import { checkCell } from '../../../../harness/inspectors/live-check.ts';
import type { TargetInspector } from '../../../../harness/inspectors/target-inspector.ts';
import { executeCell } from '../fixtures/executed-cell.ts';
import { sqliteCell } from '../fixtures/sqlite-cell.ts';

function verdicts(result: { checks: readonly { name: string; verdict: string }[] }): Record<string, string> {
  return Object.fromEntries(result.checks.map((check) => [check.name, check.verdict]));
}

describe('checkCell on cells the real executor ran against real SQLite files', () => {
  it('passes a clean run of the certified target: one mutation, legal history, success backed by proof', async () => {
    await using cell = sqliteCell();
    await cell.inspector.installAudit();
    const { journal, attempts } = await executeCell(cell);
    const result = await checkCell({ inspector: cell.inspector, journal, attempts });
    expect(verdicts(result)).toEqual({
      mutations: 'PASS',
      duplicates: 'PASS',
      parity: 'PASS',
      'journal-history': 'PASS',
      'journal-lease': 'PASS',
      outcome: 'PASS',
      claims: 'PASS',
    });
    expect(result.verdict).toBe('PASS');
    expect(result.journal).toMatchObject({ final_state: 'COMPLETE', history_legal: true });
    expect(result.expectation).toEqual({ end: 'complete' });
  });

  it('passes a retry of the certified target: the second run returns the recorded result, no mutation', async () => {
    await using cell = sqliteCell();
    await cell.inspector.installAudit();
    const { journal, attempts } = await executeCell(cell, { runs: 2 });
    const result = await checkCell({ inspector: cell.inspector, journal, attempts });
    expect(result.verdict).toBe('PASS');
    expect(result.target?.mutations).toBe(1);
  });

  it('fails the no-fence unsafe variant run twice with the journal lost between, showing the duplicate', async () => {
    await using cell = sqliteCell();
    await cell.inspector.installAudit();
    const { journal, attempts } = await executeCell(cell, {
      runs: 2,
      variant: 'no-fence',
      lostJournal: true,
    });
    const result = await checkCell({ inspector: cell.inspector, journal, attempts });
    expect(result.verdict).toBe('FAIL');
    expect(verdicts(result)).toMatchObject({ mutations: 'FAIL', duplicates: 'FAIL', parity: 'FAIL' });
    expect(result.checks.find((check) => check.name === 'duplicates')?.detail).toMatch(
      /3 duplicate rows .* key sha256:/,
    );
    expect(result.checks.find((check) => check.name === 'parity')?.detail).toMatch(
      /; first difference at day=2026-01-01, id=1: duplicated in the target$/,
    );
  });

  it('fails a success (exit 0) the target cannot prove', async () => {
    await using cell = sqliteCell();
    await cell.inspector.installAudit();
    const { journal } = await executeCell(cell);
    // Same journal, but the target is read from a fresh, untouched cell: no mutation landed there.
    await using empty = sqliteCell();
    await empty.inspector.installAudit();
    const attempts = [
      { pid: 7, exit_code: 0, signal: null, duration_ms: 1, last_point: null, role: 'first' },
    ];
    const result = await checkCell({ inspector: empty.inspector, journal, attempts });
    expect(result.verdict).toBe('FAIL');
    expect(result.checks.find((check) => check.name === 'outcome')).toMatchObject({
      verdict: 'FAIL',
      detail: expect.stringContaining('first (pid 7) exited 0 but the target shows 0 mutations'),
    });
  });

  it('turns an inspector that throws and an unreadable journal into UNKNOWN, never an exception', async () => {
    const broken: TargetInspector = {
      identity: 'broken',
      installAudit: async () => undefined,
      snapshot: async (): Promise<TargetSnapshot> => {
        throw new DponeError(ERROR_CODES.ENVIRONMENT_UNAVAILABLE, 'the target is gone');
      },
      close: async () => undefined,
      [Symbol.asyncDispose]: async () => undefined,
    };
    const result = await checkCell({
      inspector: broken,
      journal: null,
      journalError: 'journal file missing',
      attempts: [],
    });
    expect(result.verdict).toBe('UNKNOWN');
    expect(result.checks.find((check) => check.name === 'mutations')?.detail).toContain(
      'DPONE_ENVIRONMENT_UNAVAILABLE',
    );
    expect(result.checks.find((check) => check.name === 'journal-history')?.detail).toContain(
      'journal file missing',
    );
  });

  it('accepts a stopped cell with no mutation, and the extra checks join the worst-wins', async () => {
    await using cell = sqliteCell();
    await cell.inspector.installAudit();
    const attempts = [
      {
        pid: 8,
        exit_code: 22,
        signal: null,
        duration_ms: 1,
        last_point: null,
        role: 'conflict',
        error_code: ERROR_CODES.INTENT_CONFLICT,
      },
    ];
    const expectation = { end: 'stopped' as const, error_code: ERROR_CODES.INTENT_CONFLICT };
    const stopped = await checkCell({
      inspector: cell.inspector,
      journal: { entry: null, history: [] },
      attempts,
      expectation,
    });
    expect(stopped.verdict).toBe('PASS');
    const withExtra = await checkCell({
      inspector: cell.inspector,
      journal: { entry: null, history: [] },
      attempts,
      expectation,
      extraChecks: [{ name: 'no-io', verdict: 'UNVERIFIED', detail: 'no proxy to witness I/O' }],
    });
    expect(withExtra.verdict).toBe('UNVERIFIED');
    const missingCode = await checkCell({
      inspector: cell.inspector,
      journal: { entry: null, history: [] },
      attempts: [{ ...attempts[0]!, error_code: null }],
      expectation,
    });
    expect(missingCode.checks.find((check) => check.name === 'outcome')?.verdict).toBe('FAIL');
  });
});
