import { beforeAll, describe, expect, it } from 'vitest';
import type { CellEvidence } from '../evidence/evidence-types.ts';
import { worst } from '../verdict.ts';
import { realCell } from './fixtures/sample-evidence.ts';
import { recheckCell } from './recheck-cell.ts';
import { AIRFLOW_CHECK_NAMES, airflowChecks, blameHarness } from './airflow-checker.ts';
import { airflowCell, airflowRun } from '../gate/fixtures/certified-evidence.ts';
import { storedSnapshot } from './target-snapshot.ts';

/** `cell` with its stored check `name` edited to PASS. */
const passedCheck = (cell: CellEvidence, name: string): CellEvidence => ({
  ...cell,
  checks: cell.checks.map((check) => (check.name === name ? { ...check, verdict: 'PASS' } : check)),
});

let passing: CellEvidence;
let caught: CellEvidence;
beforeAll(async () => {
  passing = await realCell('retry/2');
  caught = await realCell('variant/no-fence/retry/2', 'no-fence');
});

describe('recheckCell (pure, from stored data alone)', () => {
  it('reaches the stored verdict on cells checked live, for a PASS and a caught variant', () => {
    expect(recheckCell(passing)).toMatchObject({ verdict: 'PASS', differences: [] });
    expect(caught.verdict).toBe('FAIL');
    expect(recheckCell(caught)).toMatchObject({ verdict: 'FAIL', differences: [] });
  });

  it('names an edited check verdict and a history edited to look legal', () => {
    const edited = passedCheck(caught, 'duplicates');
    expect(recheckCell(edited).differences).toEqual([
      expect.stringMatching(/^check duplicates: stored PASS, recomputed FAIL/),
    ]);
    const history = passing.journal!.history.map((item) =>
      item.to_state === 'TARGET_COMMITTED' ? { ...item, fence_status: null } : item,
    );
    const forged: CellEvidence = { ...passing, journal: { ...passing.journal!, history } };
    expect(recheckCell(forged).differences).toEqual(
      expect.arrayContaining([
        'journal.history_legal: stored true, recomputed false',
        'verdict: stored PASS, recomputed FAIL',
      ]),
    );
  });

  it('keeps the first difference the inspector read, and names one stored beside parity', () => {
    expect(caught.target?.first_difference).toMatchObject({ kind: 'duplicate' });
    const parity = recheckCell(caught).checks.find((check) => check.name === 'parity');
    expect(parity?.detail).toMatch(/first difference at day=2026-01-01, id=1: duplicated in the target$/);
    const forged: CellEvidence = {
      ...passing,
      target: { ...passing.target!, first_difference: { key: { id: '1' }, kind: 'missing' } },
    };
    expect(recheckCell(forged).differences).toEqual([
      'target.first_difference: stored, but the trail shows parity',
    ]);
  });

  it('a trail without its row lists (a huge partition) still re-checks mutations, row count and parity', () => {
    const target = passing.target!;
    const compact = storedSnapshot({ ...target, audit: { ...target.audit! } }, 0);
    expect(compact.audit).toMatchObject({ target_row_keys: [], row_lists_omitted: target.row_count });
    const cell: CellEvidence = { ...passing, target: compact };
    expect(recheckCell(cell)).toMatchObject({ verdict: 'PASS', differences: [] });
    // An edited mutation count, row count or parity is still caught without the lists.
    const twice = [...compact.audit!.mutation_records, { marker: 'run-2', rows: 1 }];
    expect(
      recheckCell({ ...cell, target: { ...compact, audit: { ...compact.audit!, mutation_records: twice } } })
        .differences,
    ).toContain(`target.mutations: stored ${compact.mutations}, recomputed 2`);
    expect(
      recheckCell({ ...cell, target: { ...compact, row_count: target.row_count + 1 } }).differences,
    ).toEqual(expect.arrayContaining([expect.stringMatching(/^target.row_count: stored/)]));
  });

  it('keeps a cell that never ran at UNVERIFIED at best', () => {
    const never: CellEvidence = {
      ...passing,
      attempts: [],
      target: null,
      journal: null,
      verdict: 'UNVERIFIED',
      checks: [{ name: 'environment', verdict: 'UNVERIFIED', detail: 'no server' }],
    };
    expect(recheckCell(never)).toMatchObject({ verdict: 'UNVERIFIED', differences: [] });
    expect(recheckCell({ ...never, verdict: 'PASS', checks: [] }).differences).toEqual([
      'verdict: stored PASS, recomputed UNVERIFIED (the cell never ran)',
    ]);
  });

  it('re-checks only the selected core checks: expectation.checks, or the core checks a runner stored', () => {
    const onlyMutations = caught.checks.filter(
      (check) => check.name === 'mutations' || check.name === 'outcome',
    );
    const stored: CellEvidence = {
      ...caught,
      checks: onlyMutations,
      verdict: worst(onlyMutations.map((c) => c.verdict)),
    };
    expect(recheckCell(stored).differences).toEqual([]);
    const declared: CellEvidence = {
      ...stored,
      expectation: { end: 'complete', checks: ['mutations', 'outcome', 'duplicates'] },
    };
    expect(recheckCell(declared).differences).toEqual([
      expect.stringMatching(/^check duplicates: missing, recomputed FAIL/),
    ]);
  });
});

describe('recheckCell on an Airflow cell the harness could not finish', () => {
  it('recomputes the UNKNOWN the runner made of a FAIL (blameHarness), and still sees an edit', () => {
    // The scheduler timed out: no DAG run was recorded and nothing landed.
    const lost = airflowCell(
      'pod-lost/target.commit:after#1',
      [airflowRun(['pod-killed@target.commit:after#1'])],
      {
        mutations: 0,
      },
    );
    const airflow = { ...lost.airflow!, runs: [] };
    const step = {
      name: 'airflow-harness',
      verdict: 'UNKNOWN' as const,
      detail: 'DPONE_ENVIRONMENT_UNAVAILABLE: Airflow: no progress for 120 s waiting for the scheduled run',
    };
    const core = lost.checks.filter((check) => !AIRFLOW_CHECK_NAMES.has(check.name));
    expect(core.find((check) => check.name === 'mutations')?.verdict).toBe('FAIL');
    const checks = blameHarness([...core, step, ...airflowChecks(airflow, lost.journal)], airflow);
    const stored: CellEvidence = {
      ...lost,
      airflow,
      checks,
      verdict: worst(checks.map((check) => check.verdict)),
    };
    expect(stored.verdict).toBe('UNKNOWN');
    expect(recheckCell(stored)).toMatchObject({ verdict: 'UNKNOWN', differences: [] });
    const edited = passedCheck(stored, 'mutations');
    expect(recheckCell(edited).differences).toEqual([
      expect.stringMatching(/^check mutations: stored PASS, recomputed UNKNOWN/),
    ]);
  });
});
