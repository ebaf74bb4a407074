import { rm } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/contracts/errors.ts';
import type { Evidence } from '../evidence/evidence-types.ts';
import { verifyEvidence } from '../evidence/evidence-verify.ts';
import { acceptanceCells, sealEvidence } from '../gate/fixtures/certified-evidence.ts';
import { FIXTURE_PLAN } from '../gate/fixtures/fixture-plan.ts';
import { evidenceFilesToMerge, expectTheWholeRun } from './fixtures/merge-files.ts';
import { planDigest } from '../plan/plan-digest.ts';
import { unionRuns } from './run-union.ts';

const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

const cells = acceptanceCells();
const whole = sealEvidence(cells, { run_id: 'whole' });

/** A whole run over some of the fixture's scenario files: its own cells and its own plan record. */
function runOf(names: readonly string[], runId: string, extra: Partial<Evidence> = {}): Evidence {
  const mine = cells.filter((cell) => names.includes(cell.scenario));
  const scenarios = FIXTURE_PLAN.scenarios.filter((scenario) => names.includes(scenario.name));
  const plan = {
    ...FIXTURE_PLAN,
    scenarios,
    digest: planDigest(mine.map((cell) => cell.id)),
    cells: mine.length,
  };
  return sealEvidence(mine, {
    run_id: runId,
    plan,
    scenario_files: scenarios.map(({ name, file }) => ({ name, file })),
    environment: { ...whole.environment, plan_digest: plan.digest, planned_cells: plan.cells },
    ...extra,
  } as Partial<Evidence>);
}

const AIRFLOW = ['airflow-live'];
const REST = FIXTURE_PLAN.scenarios
  .map((scenario) => scenario.name)
  .filter((name) => name !== 'airflow-live');

const mergeFiles = (runs: readonly Evidence[]) =>
  evidenceFilesToMerge(runs, { name: 'run', out: 'joined' }, dirs);

describe('certify merge of whole runs (a union over disjoint scenario files)', () => {
  it('joins the default-suite run and a run of the scenarios the full suite adds into the whole run', async () => {
    const parts = [runOf(REST, 'default-suite'), runOf(AIRFLOW, 'airflow-only')];
    expect(parts.every((part) => part.cells.length > 0)).toBe(true);
    const { io, run, evidence } = await mergeFiles(parts);
    expect(await run()).toBe(0);
    const joined = await evidence();
    expectTheWholeRun(joined, whole);
    expect(joined.plan?.digest).toBe(FIXTURE_PLAN.digest);
    expect(joined.plan?.cells).toBe(FIXTURE_PLAN.cells);
    expect(joined.environment.joined_from).toEqual(['airflow-only', 'default-suite']);
    expect(verifyEvidence(joined)).toEqual({ ok: true, differences: [] });
    expect(io.out()).toContain('merged 2 runs');
  });

  it('refuses a union whose cells are not the plan derived again (a cell dropped from one run)', async () => {
    const rest = runOf(REST, 'default-suite');
    const dropped = sealEvidence(rest.cells.slice(1), {
      run_id: 'default-suite',
      plan: rest.plan!,
      scenario_files: (rest as { scenario_files?: unknown }).scenario_files,
      environment: rest.environment,
    } as Partial<Evidence>);
    const { run } = await mergeFiles([dropped, runOf(AIRFLOW, 'airflow-only')]);
    await expect(run()).rejects.toMatchObject({
      code: ERROR_CODES.INVALID_INPUT,
      message: expect.stringContaining('planned cell(s) missing'),
    });
  });

  it('refuses the same scenario twice, another seed or connector, a shard among whole runs', () => {
    const rest = runOf(REST, 'a');
    const airflow = runOf(AIRFLOW, 'b');
    const cases: [readonly Evidence[], RegExp][] = [
      [[rest, runOf(REST, 'c')], /in more than one run/],
      [[rest, runOf(AIRFLOW, 'b', { seed: 7 })], /seed/],
      [
        [rest, { ...airflow, environment: { ...airflow.environment, connector_version: 'other/9' } }],
        /connector_version/,
      ],
      [[rest, { ...airflow, shard: { index: 1, count: 2 } }], /is a shard/],
      [[rest], /two or more/],
    ];
    for (const [runs, message] of cases) expect(() => unionRuns(runs)).toThrow(message);
  });

  it('joins a trace key one run recorded with its recovery traces and the other with its clean run only; refuses one recorded differently', () => {
    const key = Object.keys(FIXTURE_PLAN.traces)[0]!;
    const book = FIXTURE_PLAN.traces[key]!;
    const withTraces = (traces: Record<string, unknown>): Evidence =>
      runOf(AIRFLOW, 'b', { plan: { ...runOf(AIRFLOW, 'b').plan!, traces } } as Partial<Evidence>);
    const cleanOnly = withTraces({ [key]: { clean: book.clean, recovery: {}, fingerprints: {} } });
    expect(unionRuns([runOf(REST, 'a'), cleanOnly]).plan?.traces[key]).toEqual(book);
    const [kill] = Object.keys(book.recovery);
    const otherRecovery = withTraces({
      [key]: { ...book, recovery: { [kill!]: ['state.complete:after#1'] } },
    });
    expect(() => unionRuns([runOf(REST, 'a'), otherRecovery])).toThrow(/different recovery traces/);
    const otherClean = withTraces({ [key]: { ...book, clean: book.clean.slice(1) } });
    expect(() => unionRuns([runOf(REST, 'a'), otherClean])).toThrow(/different clean traces/);
  });

  it('keeps the statement points one run recorded with a trace key; refuses two runs that recorded them differently', () => {
    const key = Object.keys(FIXTURE_PLAN.traces)[0]!;
    const book = FIXTURE_PLAN.traces[key]!;
    const run = (names: readonly string[], id: string, traces: Record<string, unknown>): Evidence =>
      runOf(names, id, { plan: { ...runOf(names, id).plan!, traces } } as Partial<Evidence>);
    const statements = ['stmt:mutate.1:before#1', 'stmt:mutate.1:after#1'];
    const joined = unionRuns([
      run(REST, 'a', { [key]: book }),
      run(AIRFLOW, 'b', { [key]: { ...book, statements } }),
    ]);
    expect(joined.plan?.traces[key]?.statements).toEqual(statements);
    const other = run(AIRFLOW, 'b', { [key]: { ...book, statements: statements.slice(1) } });
    expect(() => unionRuns([run(REST, 'a', { [key]: { ...book, statements } }), other])).toThrow(
      /different statement traces/,
    );
  });

  it('refuses shards and whole runs given together', async () => {
    const { run } = await mergeFiles([
      runOf(REST, 'a'),
      runOf(AIRFLOW, 'b', { shard: { index: 1, count: 1 } }),
    ]);
    await expect(run()).rejects.toMatchObject({ code: ERROR_CODES.INVALID_INPUT });
  });
});
