import { describe, expect, it } from 'vitest';
import { checkedCell, target } from '../gate/fixtures/certified-evidence.ts';
import type {
  AttemptRecord,
  CellEvidence,
  InspectReading,
  JournalSnapshot,
  LossObservation,
} from '../evidence/evidence-types.ts';
import { evaluateCell } from './check-cell.ts';
import type { CheckContext } from './check-types.ts';
import { claimsChecker } from './claims-checker.ts';
import { fenceAgreementChecker } from './fence-agreement-checker.ts';
import { fenceRecreatedChecker } from './fence-recreated-checker.ts';
import { inspectChecker } from './inspect-checker.ts';
import { outcomeChecker } from './outcome-checker.ts';
import { recheckCell } from './recheck-cell.ts';

const attempt = (role: string, extra: Partial<AttemptRecord> = {}): AttemptRecord => ({
  pid: 10,
  exit_code: 0,
  signal: null,
  duration_ms: 5,
  last_point: null,
  role,
  ...extra,
});
const killed = attempt('first', { exit_code: null, signal: 'SIGKILL' });

function journal(finalState: string | null): JournalSnapshot {
  return { final_state: finalState, version: finalState ? 1 : null, history_legal: true, history: [] };
}

const committedFence = (where = '_dpone_fence') => ({ where, table: true, status: 'committed', epoch: 1 });
const inspected = (kind: string, state: string, extra: Partial<InspectReading> = {}): InspectReading => ({
  exit_code: 0,
  error_code: null,
  assessment: { kind, state, version: 7, fence: 'committed' },
  journal_unchanged: true,
  ...extra,
});

function context(
  mutations: number,
  loss: LossObservation,
  attempts: AttemptRecord[] = [killed],
): CheckContext {
  return {
    target: target(mutations),
    journal: journal('COMPLETE'),
    attempts,
    expectation: { end: 'stopped' },
    loss,
  };
}

describe('claims', () => {
  it('passes one claimed write the target shows', () => {
    const check = claimsChecker.check(
      context(1, { fence: null, inspect: null }, [killed, attempt('settle', { mutated: true })]),
    );
    expect(check).toMatchObject({
      verdict: 'PASS',
      detail: '1 of 2 attempts claimed a write; the target shows 1',
    });
  });

  it('fails two attempts each claiming the write, and a claim the target does not show', () => {
    const two = [attempt('fork', { mutated: true }), attempt('settle', { mutated: true })];
    expect(claimsChecker.check(context(1, { fence: null, inspect: null }, two)).detail).toBe(
      '2 attempts each claimed their own write: fork (pid 10), settle (pid 10)',
    );
    const none = claimsChecker.check(
      context(0, { fence: null, inspect: null }, [attempt('settle', { mutated: true })]),
    );
    expect(none).toMatchObject({
      verdict: 'FAIL',
      detail: 'settle (pid 10) claimed a write, but the target shows none',
    });
  });
});

describe('fence-agreement', () => {
  it('passes a committed fence and one mutation, and a prepared fence and none', () => {
    expect(
      fenceAgreementChecker.check(context(1, { fence: { locations: [committedFence()] }, inspect: null }))
        .verdict,
    ).toBe('PASS');
    const prepared = { where: '_dpone_fence', table: true, status: 'prepared', epoch: 1 };
    expect(
      fenceAgreementChecker.check(context(0, { fence: { locations: [prepared] }, inspect: null })).verdict,
    ).toBe('PASS');
  });

  it('fails a fence that proves a commit the target lacks, a mutation no fence proves, and two commits', () => {
    const fence = { locations: [committedFence()] };
    expect(fenceAgreementChecker.check(context(0, { fence, inspect: null })).detail).toBe(
      'the fence proves one commit (committed@_dpone_fence) but the target shows 0 mutation(s)',
    );
    const prepared = { locations: [{ where: '_dpone_fence', table: true, status: 'prepared', epoch: 1 }] };
    expect(fenceAgreementChecker.check(context(1, { fence: prepared, inspect: null })).verdict).toBe('FAIL');
    const two = { locations: [committedFence(), committedFence('_dpone_fence_lost')] };
    expect(fenceAgreementChecker.check(context(2, { fence: two, inspect: null })).detail).toMatch(
      /^2 fence rows claim a commit/,
    );
  });

  it('has no claim to compare once the fence is gone, and is UNKNOWN when the fence was not read', () => {
    const gone = { locations: [{ where: '_dpone_fence', table: false, status: null, epoch: null }] };
    expect(fenceAgreementChecker.check(context(1, { fence: gone, inspect: null })).detail).toBe(
      'no fence row for the operation remains (fence tables: none); the target shows 1 mutation(s)',
    );
    expect(
      fenceAgreementChecker.check(context(1, { fence: null, fence_error: 'locked', inspect: null })),
    ).toMatchObject({
      verdict: 'UNKNOWN',
      detail: 'fence not read: locked',
    });
  });
});

describe('inspect-explains', () => {
  const fence = { locations: [committedFence()] };

  it('passes complete with one mutation, and a stopped end after a loss', () => {
    expect(
      inspectChecker.check(context(1, { fence, inspect: inspected('complete', 'COMPLETE') })).verdict,
    ).toBe('PASS');
    expect(
      inspectChecker.check(context(1, { fence, inspect: inspected('needs-evidence', 'COMMIT_UNKNOWN') }))
        .verdict,
    ).toBe('PASS');
  });

  it('fails an assessment the target contradicts, and an inspect that wrote to the journal', () => {
    const check = (mutations: number, reading: InspectReading) =>
      inspectChecker.check(context(mutations, { fence, inspect: reading })).detail;
    expect(check(0, inspected('complete', 'COMPLETE'))).toContain(
      'inspect says complete but the target shows 0',
    );
    expect(check(1, inspected('retry-safe', 'PREPARED'))).toContain('inspect says a retry is safe');
    expect(check(0, inspected('operator-action', 'TARGET_COMMITTED'))).toContain(
      'the journal says TARGET_COMMITTED while the target shows no mutation, and inspect says operator-action',
    );
    expect(check(1, inspected('complete', 'COMPLETE', { journal_unchanged: false }))).toBe(
      'inspect changed the journal (it must be read-only)',
    );
  });

  it('accepts a failing inspect only when the journal lost the operation', () => {
    const failed: InspectReading = {
      exit_code: 10,
      error_code: 'DPONE_TARGET_COMMIT_JOURNAL_UNAVAILABLE',
      assessment: null,
      journal_unchanged: true,
    };
    const lost = { ...context(1, { fence, inspect: failed }), journal: journal(null) };
    expect(inspectChecker.check(lost).verdict).toBe('PASS');
    expect(inspectChecker.check(context(1, { fence, inspect: failed }))).toMatchObject({
      verdict: 'FAIL',
      detail: expect.stringContaining('although the journal holds the operation (COMPLETE)'),
    });
  });
});

describe('loss checks in a cell', () => {
  it('judge a forked deployment by its own journal, and only loss cells get the loss checks', () => {
    const fork = attempt('fork', { journal: 'fork', status: 'committed', mutated: true });
    const incomplete = {
      fence: { locations: [committedFence()] },
      inspect: null,
      fork_journal: journal('PREPARED'),
    };
    expect(outcomeChecker.check(context(1, incomplete, [killed, fork])).detail).toBe(
      'fork (pid 10) exited 0 but its (forked) journal ended PREPARED',
    );
    const plain = evaluateCell({ ...context(1, incomplete), loss: undefined } as CheckContext);
    expect(plain.checks.map((check) => check.name)).not.toContain('fence-agreement');
  });

  it('are recomputed from the stored observation: an edited fence reading is named', () => {
    const loss: LossObservation = {
      fence: { locations: [committedFence()] },
      inspect: inspected('complete', 'COMPLETE'),
    };
    const cell = checkedCell(
      'journal-loss/delete/target.commit:after#1',
      'journal-loss',
      { kind: 'journal-loss', mode: 'delete', point: 'target.commit:after', hit: 1 },
      [killed, attempt('settle', { mutated: true })],
      { expectation: { end: 'stopped' }, loss },
    );
    expect(cell.verdict).toBe('PASS');
    expect(recheckCell(cell).differences).toEqual([]);
    const edited: CellEvidence = {
      ...cell,
      loss: { ...loss, fence: { locations: [{ ...committedFence(), status: 'prepared' }] } },
    };
    expect(recheckCell(edited).differences).toEqual([
      expect.stringMatching(/^check fence-agreement: stored PASS, recomputed FAIL/),
      'verdict: stored PASS, recomputed FAIL',
    ]);
  });
});

describe('fence-not-recreated', () => {
  const emptied = (table: boolean, status: string | null = null): LossObservation => ({
    fence: { locations: [{ where: '_dpone_fence', table, status, epoch: status ? 2 : null }] },
    inspect: null,
    fence_removed: true,
  });
  const retried = [killed, attempt('retry', { exit_code: 20 }), attempt('settle', { exit_code: 20 })];

  it('passes when the operation has no fence row where the lost fence was, after the retries', () => {
    const check = fenceRecreatedChecker.check(context(1, emptied(false), retried));
    expect(check.verdict).toBe('PASS');
    expect(check.detail).toContain('after 2 later worker(s): no fence table');
    // A table created again when the target opens holds no claim: reported, not failed.
    expect(fenceRecreatedChecker.check(context(1, emptied(true), retried)).detail).toContain(
      'empty fence table',
    );
  });

  it('fails when a later worker wrote the operation’s fence row again, whatever its status', () => {
    for (const status of ['prepared', 'committed'])
      expect(fenceRecreatedChecker.check(context(1, emptied(true, status), retried)).verdict).toBe('FAIL');
  });

  it('applies only where the fault emptied the fence’s place (not to a moved view or a journal loss)', () => {
    expect(fenceRecreatedChecker.applies!(context(1, emptied(true)))).toBe(true);
    expect(fenceRecreatedChecker.applies!(context(1, { fence: null, inspect: null }))).toBe(false);
    const cell = evaluateCell(context(1, emptied(true, 'prepared'), retried));
    expect(cell.checks.find((c) => c.name === 'fence-not-recreated')?.verdict).toBe('FAIL');
    expect(cell.verdict).toBe('FAIL');
  });

  it('is UNKNOWN when the harness could not read the fence', () => {
    const loss: LossObservation = {
      fence: null,
      fence_error: 'server gone',
      inspect: null,
      fence_removed: true,
    };
    expect(fenceRecreatedChecker.check(context(1, loss)).verdict).toBe('UNKNOWN');
  });
});
