import { describe, expect, it } from 'vitest';
import type { AirflowRecord, JournalSnapshot } from '../evidence/evidence-types.ts';
import { airflowRun } from '../gate/fixtures/certified-evidence.ts';
import { airflowChecks, blameHarness } from './airflow-checker.ts';

const complete: JournalSnapshot = { final_state: 'COMPLETE', version: 5, history_legal: true, history: [] };

function recordOf(runs: AirflowRecord['runs'], operations = 1): AirflowRecord {
  return { version: '3.3.2', dag_id: 'dpone_live_x', task_id: 'orders_to_events', runs, operations };
}

const verdicts = (record: AirflowRecord, journal: JournalSnapshot | null = complete) =>
  Object.fromEntries(airflowChecks(record, journal).map((check) => [check.name, check.verdict]));

describe('airflow checks', () => {
  it('pass a run that failed once per lost try and then succeeded through dpone', () => {
    expect(verdicts(recordOf([airflowRun(['pod-killed@target.commit:after#1'])]))).toEqual({
      'airflow-runs': 'PASS',
      'airflow-success-proven': 'PASS',
      'one-operation': 'PASS',
    });
  });

  it('fail a run with more or fewer tries than the harness caused, or another final state', () => {
    expect(verdicts(recordOf([airflowRun(['pod-killed'], 1)]))['airflow-runs']).toBe('FAIL');
    expect(verdicts(recordOf([airflowRun([], 2)]))['airflow-runs']).toBe('FAIL');
    const failed = { ...airflowRun(['pod-killed']), task_state: 'failed' };
    expect(verdicts(recordOf([failed]))['airflow-runs']).toBe('FAIL');
    expect(verdicts(recordOf([]))['airflow-runs']).toBe('UNKNOWN');
  });

  it('fail an Airflow success that dpone or the journal does not back', () => {
    const run = airflowRun([]);
    const lying = { ...run, tries: [{ ...run.tries[0]!, dpone_status: 'failed' }] };
    expect(verdicts(recordOf([lying]))['airflow-success-proven']).toBe('FAIL');
    const noDpone = { ...run, tries: [{ try_number: 1, state: 'success' }] };
    expect(verdicts(recordOf([noDpone]))['airflow-success-proven']).toBe('FAIL');
    // The XCom was lost, so only the exit code tells: a killed dpone is no success.
    const killed = { ...run, tries: [{ ...run.tries[0]!, dpone_status: null, dpone_exit: -9 }] };
    expect(verdicts(recordOf([killed]))['airflow-success-proven']).toBe('FAIL');
    const unfinished = { ...complete, final_state: 'TARGET_COMMITTED' };
    expect(verdicts(recordOf([run]), unfinished)['airflow-success-proven']).toBe('FAIL');
    expect(verdicts(recordOf([run]), null)['airflow-success-proven']).toBe('UNKNOWN');
  });

  it('in shadow mode ask no operation of the journal, but still a dpone success behind each Airflow success', () => {
    const protocolRun = airflowRun(['pod-killed@shadow.record:after#1']);
    // A shadow-mode dpone reports its plain write as `written`.
    const run = {
      ...protocolRun,
      tries: protocolRun.tries.map((t) => (t.state === 'success' ? { ...t, dpone_status: 'written' } : t)),
    };
    const shadow = { ...recordOf([run], 0), mode: 'shadow' as const };
    expect(verdicts(shadow, null)).toEqual({ 'airflow-runs': 'PASS', 'airflow-success-proven': 'PASS' });
    // A protocol status is not what shadow mode reports: the try did not run under the policy.
    expect(verdicts({ ...shadow, runs: [protocolRun] }, null)['airflow-success-proven']).toBe('FAIL');
    const lying = {
      ...shadow,
      runs: [{ ...run, tries: [run.tries[0]!, { ...run.tries[1]!, dpone_exit: 3 }] }],
    };
    expect(verdicts(lying, null)['airflow-success-proven']).toBe('FAIL');
  });

  it('fail a cell whose runs of one interval made two operations', () => {
    expect(verdicts(recordOf([airflowRun([])], 2))['one-operation']).toBe('FAIL');
  });

  it("turn a FAIL into UNKNOWN when the harness's Airflow step never got dpone running, and say so", () => {
    const neverLanded = { name: 'mutations', verdict: 'FAIL' as const, detail: 'the mutation never landed' };
    const passed = { name: 'duplicates', verdict: 'PASS' as const, detail: 'no duplicates' };
    const noRun = blameHarness([neverLanded, passed], recordOf([]));
    expect(noRun.map((c) => [c.name, c.verdict])).toEqual([
      ['mutations', 'UNKNOWN'],
      ['duplicates', 'PASS'],
      ['harness', 'UNKNOWN'],
    ]);
    expect(noRun[0]!.detail).toContain('Airflow recorded no DAG run: dpone never ran');
    // A run whose only try never reached dpone (the scheduler lost it): the same.
    const queued = { ...airflowRun([]), task_state: 'failed', tries: [{ try_number: 1, state: 'failed' }] };
    expect(blameHarness([neverLanded], recordOf([queued]))[0]!.verdict).toBe('UNKNOWN');
    // Once a try ran dpone, a FAIL is the connector's and stays FAIL.
    expect(blameHarness([neverLanded], recordOf([airflowRun([])]))).toEqual([neverLanded]);
  });

  it('names the step and the wait when the scheduler timed out and no DAG run was recorded', () => {
    const neverLanded = {
      name: 'mutations',
      verdict: 'FAIL' as const,
      detail: 'the mutation never landed, yet the cell was expected to complete',
    };
    const timedOut = {
      name: 'airflow-harness',
      verdict: 'UNKNOWN' as const,
      detail:
        'DPONE_ENVIRONMENT_UNAVAILABLE: Airflow: no progress for 120 s waiting for the scheduled run (121 s in all; last seen: 3; )',
    };
    const checks = blameHarness([timedOut, neverLanded], recordOf([]));
    const byName = Object.fromEntries(checks.map((c) => [c.name, c]));
    expect(checks.map((c) => c.verdict)).not.toContain('FAIL');
    expect(byName.mutations!.verdict).toBe('UNKNOWN');
    expect(byName.harness!.detail).toContain("the harness's Airflow step failed before the connector ran");
    expect(byName.harness!.detail).toContain('no DAG run');
    expect(byName.harness!.detail).toContain('no progress for 120 s waiting for the scheduled run');
  });

  it('after dpone ran, a harness step that gave up turns only the unfinished end UNKNOWN; harm done stays FAIL', () => {
    const timedOut = {
      name: 'airflow-harness',
      verdict: 'UNKNOWN' as const,
      detail: 'DPONE_ENVIRONMENT_UNAVAILABLE: Airflow: no progress for 240 s waiting for run r1 to end',
    };
    const ran = recordOf([airflowRun(['pod-killed@target.commit:after#1'], 1)]);
    const unfinished = [
      timedOut,
      {
        name: 'mutations',
        verdict: 'FAIL' as const,
        detail: 'the mutation never landed, yet the cell was expected to complete',
      },
      { name: 'parity', verdict: 'FAIL' as const, detail: 'target 0 rows differs from source 20 rows' },
      {
        name: 'outcome',
        verdict: 'FAIL' as const,
        detail: 'expected the operation to complete; the journal ended COMMITTING',
      },
      { name: 'airflow-runs', verdict: 'FAIL' as const, detail: 'scheduled r1: up_for_retry after 1 try' },
    ];
    const blamed = blameHarness(unfinished, ran);
    expect(blamed.filter((c) => c.verdict === 'FAIL')).toEqual([]);
    expect(blamed.find((c) => c.name === 'harness')!.detail).toContain(
      'failed before the case reached its end, after dpone ran: the step that failed: DPONE_ENVIRONMENT_UNAVAILABLE: Airflow: no progress for 240 s waiting for run r1 to end',
    );
    // A second landing is harm done whatever the harness did afterwards: it stays FAIL, and so does parity beside it.
    const twice = [
      timedOut,
      {
        name: 'mutations',
        verdict: 'FAIL' as const,
        detail: 'the mutation landed 2 times (audit: 20+20 inserts)',
      },
      { name: 'parity', verdict: 'FAIL' as const, detail: 'target 40 rows differs from source 20 rows' },
      { name: 'duplicates', verdict: 'FAIL' as const, detail: '20 duplicate rows' },
    ];
    const kept = Object.fromEntries(blameHarness(twice, ran).map((c) => [c.name, c.verdict]));
    expect(kept).toMatchObject({ mutations: 'FAIL', parity: 'FAIL', duplicates: 'FAIL', harness: 'UNKNOWN' });
    // No harness trouble and dpone ran: the FAIL is the connector's.
    expect(blameHarness(unfinished.slice(1), ran).filter((c) => c.verdict === 'FAIL')).toHaveLength(4);
  });
});
