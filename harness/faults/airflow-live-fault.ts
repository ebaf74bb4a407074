import { describeError } from '../evidence/error-description.ts';
import { AIRFLOW_HARNESS_CHECK } from '../checkers/airflow-checker.ts';
import type { AirflowRecord, CheckRecord } from '../evidence/evidence-types.ts';
import type { CellDraft } from '../plan/cell.ts';
import { deriveSeed, randomInt, seededRandom } from '../data/seeded-random.ts';
import { occurrenceKey, parseOccurrence } from '../plan/trace.ts';
import { AIRFLOW_LIVE_DEFAULT_CASES } from '../scenario/scenario-schema.ts';
import type { FaultSpecOf, AIRFLOW_LIVE_CASES } from '../scenario/scenario-schema.ts';
import { AirflowCell } from './airflow-live-cell.ts';
import type { TryStop } from './airflow-live-cell.ts';
import type { CaseResult, LiveCase } from './airflow-live-cases.ts';
import { podLost, runnerLost, unknownOutcome, workerLost, xcomLost } from './airflow-live-cases.ts';
import { cleared, identity, retriggered } from './airflow-live-reruns.ts';
import { shadowPolicyEnv, shadowRetried } from './airflow-live-shadow.ts';
import type { CellOutcome, CellRun, FaultModule, PlanContext } from './fault.ts';
import { TAKEOVER_LEASE_TTL_MS } from './fault.ts';
import { DponeError, ERROR_CODES } from '../../src/contracts/errors.ts';

type CaseName = (typeof AIRFLOW_LIVE_CASES)[number];

interface LiveParams {
  readonly case: CaseName;
  /** pod-lost: the stop of each try (null: not stopped). xcom-lost: the mode. */
  readonly losses?: readonly (string | null)[];
  readonly mode?: 'missing' | 'unreadable';
}

/** Fixed pod losses: before the mutation began, and right after the target committed. */
const POD_LOST_POINTS = ['cas:PREPARED->COMMITTING:after#1', 'target.commit:after#1'];
/**
 * Every retry used: three pods lost (before the mutation, right after the commit the retry makes,
 * at the start of the next), the fourth and last try finishes. Each point is on its try's path.
 */
const EVERY_RETRY = ['cas:PREPARED->COMMITTING:after#1', 'target.commit:after#1', 'journal.read:before#1'];
/**
 * The case the unsafe variants are run with: a lost worker whose retry takes the operation over
 * and whose old dpone wakes up afterwards. Each of the four variants writes twice there.
 */
const SENSITIVE_CASE = 'worker-lost';

function draft(localId: string, params: LiveParams, tries: number, sensitive = false): CellDraft {
  return {
    localId,
    fault: {
      kind: 'airflow-live',
      case: params.case,
      workers: tries,
      ...(params.losses ? { losses: params.losses } : {}),
    },
    params: { ...params },
    sensitive,
  };
}

function planLive(spec: FaultSpecOf<'airflow-live'>, { seed, traces }: PlanContext): CellDraft[] {
  const drafts: CellDraft[] = [];
  for (const name of spec.cases ?? AIRFLOW_LIVE_DEFAULT_CASES) {
    if (name === 'pod-lost') {
      for (const point of POD_LOST_POINTS)
        drafts.push(draft(`pod-lost/${point}`, { case: name, losses: [point] }, 2));
      drafts.push(draft('pod-lost/every-retry', { case: name, losses: EVERY_RETRY }, 4));
      for (let index = 1; index <= (spec.random ?? 1) && traces.clean.length > 0; index++) {
        const random = seededRandom(deriveSeed(seed, `airflow-live-${index}`));
        const losses = [1, 2, 3].map(() =>
          occurrenceKey(traces.clean[randomInt(random, 0, traces.clean.length - 1)]!),
        );
        drafts.push(draft(`pod-lost/seed${seed}-${index}`, { case: name, losses }, 4));
      }
    } else if (name === 'xcom-lost') {
      for (const mode of ['missing', 'unreadable'] as const)
        drafts.push(draft(`xcom-lost/${mode}`, { case: name, mode }, mode === 'missing' ? 1 : 2));
    } else drafts.push(draft(name, { case: name }, name === 'unknown' ? 3 : 2, name === SENSITIVE_CASE));
  }
  return drafts;
}

function liveCase(params: LiveParams): LiveCase {
  switch (params.case) {
    case 'pod-lost':
      return podLost((params.losses ?? []).map((key) => (key ? (parseOccurrence(key) as TryStop) : null)));
    case 'xcom-lost':
      return xcomLost(params.mode ?? 'unreadable');
    case 'runner-lost':
      return runnerLost();
    case 'worker-lost':
      return workerLost();
    case 'unknown':
      return unknownOutcome();
    case 'cleared':
      return cleared();
    case 'retriggered':
      return retriggered();
    case 'identity':
      return identity();
    case 'shadow':
      return shadowRetried();
  }
}

async function operations(run: CellRun): Promise<number> {
  const journal = await run.fixture.openJournal();
  try {
    return (await journal.list()).length;
  } finally {
    await journal.close();
  }
}

async function runLive(run: CellRun, spec: FaultSpecOf<'airflow-live'>): Promise<CellOutcome> {
  if (!run.airflow)
    throw new DponeError(ERROR_CODES.ENVIRONMENT_UNAVAILABLE, 'airflow-live cell without a started Airflow');
  const params = run.cell.params as unknown as LiveParams;
  const plan = liveCase(params);
  const shadow = params.case === 'shadow';
  await using cell = await AirflowCell.open(
    run,
    run.airflow,
    plan.plans,
    spec.retry_delay_s ?? 2,
    shadow ? await shadowPolicyEnv(run) : {},
  );
  let result: CaseResult = { hit: false };
  const extra: CheckRecord[] = [];
  try {
    result = await plan.drive(cell);
  } catch (error) {
    extra.push({ name: AIRFLOW_HARNESS_CHECK, verdict: 'UNKNOWN', detail: describeError(error) });
  }
  const airflow: AirflowRecord = {
    version: run.airflow.venv.version,
    dag_id: cell.dagId,
    task_id: cell.taskId,
    runs: cell.runs,
    operations: await operations(run),
    ...(shadow ? { mode: 'shadow' as const } : {}),
  };
  return {
    attempts: [...(await cell.attempts()), ...(result.attempts ?? [])],
    hit: result.hit,
    extraChecks: [...extra, ...(result.checks ?? [])],
    // Airflow itself must bring the operation to its end: no settle worker. In shadow mode no
    // operator either (a fenceless target's operator settling is for the protocol's unknowns).
    settle: shadow ? 'never' : false,
    airflow,
    // Shadow mode runs no protocol and writes again on a retry, as legacy: the shadow checks
    // (what legacy writes, what the report lists) decide, not one mutation.
    ...(shadow ? { expectation: { end: 'complete' as const, checks: [] } } : {}),
  };
}

/**
 * airflow-live: a real Airflow scheduler (LocalExecutor) runs the production DAG's `dpone run`
 * for the cell's workload, with retries=3, while the harness loses pods, task runners and
 * workers, spoils XComs, drives an unknown outcome, clears the task and runs the interval again
 * (harness/faults/airflow-live-cases.ts). Checks come from the target, the journal and
 * Airflow's own record of every run and try (harness/checkers/airflow-checker.ts).
 */
export const airflowLiveFault: FaultModule<'airflow-live'> = {
  kind: 'airflow-live',
  leaseTtlMs: () => TAKEOVER_LEASE_TTL_MS,
  plan: planLive,
  run: runLive,
};
