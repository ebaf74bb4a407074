import type { CellEvidence, Evidence } from '../evidence/evidence-types.ts';
import type { Verdict } from '../verdict.ts';
import { COMMITTED_STATES, isCommitState } from '../../src/contracts/states.ts';
import { ERROR_CODES } from '../../src/contracts/errors.ts';
import { allPass, mutations, transitionsSeen } from './cell-verdicts.ts';
import { LOSS_KINDS, journalLossItem } from './journal-loss-item.ts';

/** One gate line: an acceptance item (or a precondition) and what the evidence says about it. */
export interface GateItemResult {
  readonly id: string;
  readonly status: Verdict;
  readonly detail: string;
}

/** A mandatory acceptance item of the spec and how it is decided from one route's cells. */
export interface AcceptanceItem {
  readonly id: string;
  /** The spec's wording. */
  readonly text: string;
  /** `environment` is the evidence's (e.g. the loss modes the route declared). */
  evaluate(cells: readonly CellEvidence[], environment?: Evidence['environment']): Omit<GateItemResult, 'id'>;
}

const killAtEveryTransition: AcceptanceItem = {
  id: 'kill-every-transition',
  text: 'killing the runtime process with SIGKILL at every transition never produces a second target mutation',
  evaluate(cells) {
    const crash = cells.filter((cell) => cell.fault.kind === 'crash');
    const failed = allPass(crash, 'crash');
    if (failed) return failed;
    const killed = new Set(
      crash.flatMap((cell) => [cell.fault.point, cell.fault.recovery_point]).filter((p): p is string => !!p),
    );
    const uncovered = [...transitionsSeen(crash)].filter(
      (transition) => ![...killed].some((point) => point.startsWith(`${transition}:`)),
    );
    if (uncovered.length > 0)
      return { status: 'UNVERIFIED', detail: `no kill at transition(s) ${uncovered.sort().join(', ')}` };
    return {
      status: 'PASS',
      detail: `${crash.length} crash cells PASS, max ${Math.max(...crash.map(mutations))} mutation; killed at every one of ${transitionsSeen(crash).size} transitions`,
    };
  },
};

const twoWorkers: AcceptanceItem = {
  id: 'two-workers-one-mutation',
  text: 'two independent workers using the same operation ID cannot both mutate',
  evaluate(cells) {
    const races = cells.filter((cell) => cell.fault.kind === 'race' && (cell.fault.workers ?? 2) >= 2);
    const pauses = cells.filter((cell) => cell.fault.kind === 'pause');
    const failed = allPass([...races, ...pauses], 'race/pause');
    if (failed) return failed;
    if (races.length === 0)
      return { status: 'UNVERIFIED', detail: 'no race cell (two or more workers) in the evidence' };
    const sizes = [...new Set(races.map((cell) => cell.fault.workers ?? 2))].sort((a, b) => a - b);
    return {
      status: 'PASS',
      detail: `${races.length} race cells (${sizes.join(', ')} workers) and ${pauses.length} pause cells PASS, each one mutation`,
    };
  },
};

const intentConflict: AcceptanceItem = {
  id: 'intent-conflict-before-io',
  text: 'an intent digest conflict fails before source or target I/O',
  evaluate(cells) {
    const conflicts = cells.filter((cell) => cell.fault.kind === 'intent-conflict');
    const failed = allPass(conflicts, 'intent-conflict');
    if (failed) return failed;
    const silent = conflicts.filter(
      (cell) => !cell.attempts.some((attempt) => attempt.error_code === ERROR_CODES.INTENT_CONFLICT),
    );
    if (silent.length > 0)
      return {
        status: 'FAIL',
        detail: `${silent[0]!.id}: no attempt reported ${ERROR_CODES.INTENT_CONFLICT}`,
      };
    return {
      status: 'PASS',
      detail: `${conflicts.length} cell(s) PASS: the conflicting attempt failed with ${ERROR_CODES.INTENT_CONFLICT}`,
    };
  },
};

/**
 * An attempt claimed success (exit 0) although the journal it used holds no committed state (a
 * forked deployment's attempt is backed by its own journal).
 */
function successWithoutProof(cell: CellEvidence): boolean {
  return cell.attempts.some((attempt) => {
    if (attempt.exit_code !== 0) return false;
    const journal = attempt.journal === 'fork' ? (cell.loss?.fork_journal ?? null) : cell.journal;
    const final = journal?.final_state;
    return journal !== null && !(isCommitState(final) && COMMITTED_STATES.has(final));
  });
}

const unknownNeverSuccess: AcceptanceItem = {
  id: 'unknown-never-success',
  text: 'unknown target outcome never becomes success or automatic replay',
  evaluate(cells) {
    // Loss cells end `stopped` because a refused retry is a correct end, not because the outcome
    // was unknown; they count here only when their journal reached COMMIT_UNKNOWN.
    const unknown = cells.filter(
      (cell) =>
        (cell.expectation?.end === 'stopped' &&
          cell.fault.kind !== 'intent-conflict' &&
          !LOSS_KINDS.has(cell.fault.kind)) ||
        (cell.journal?.history ?? []).some((record) => record.to_state === 'COMMIT_UNKNOWN'),
    );
    const failed = unknown.length > 0 ? allPass(unknown, 'unknown-outcome') : null;
    if (failed) return failed;
    const claimed = cells.filter(successWithoutProof);
    if (claimed.length > 0)
      return {
        status: 'FAIL',
        detail: `${claimed[0]!.id}: an attempt exited 0 without a committed journal state`,
      };
    const ran = cells.filter((cell) => cell.journal !== null).length;
    return unknown.length > 0
      ? {
          status: 'PASS',
          detail: `${unknown.length} unknown-outcome cell(s) PASS: stayed stopped, at most one mutation`,
        }
      : {
          status: 'PASS',
          detail: `no cell reached an unknown outcome (the fence always answered); no success without proof in ${ran} cells`,
        };
  },
};

const liveUnverified: AcceptanceItem = {
  id: 'unavailable-is-unverified',
  text: 'live checks are reported UNVERIFIED when the environment is unavailable',
  evaluate(cells) {
    const unrun = cells.filter(
      (cell) => cell.attempts.length === 0 || cell.target === null || cell.journal === null,
    );
    const claimed = unrun.filter((cell) => cell.verdict === 'PASS');
    if (claimed.length > 0)
      return {
        status: 'FAIL',
        detail: `${claimed[0]!.id} is PASS without a run, target or journal snapshot`,
      };
    return {
      status: 'PASS',
      detail: `every PASS cell ran; ${unrun.length} cell(s) without a run are not PASS`,
    };
  },
};

/** The spec's Airflow row needs these cases: pod loss, worker loss, XCom loss. */
const AIRFLOW_REQUIRED_CASES = ['pod-lost', 'worker-lost', 'xcom-lost'] as const;

/** The first check of a cell that is not PASS (why an airflow-live cell did not pass). */
function firstProblem(cell: CellEvidence): string {
  const check = cell.checks.find((candidate) => candidate.verdict !== 'PASS');
  return check ? `: ${check.name} ${check.verdict}: ${check.detail}` : '';
}

const airflowLive: AcceptanceItem = {
  id: 'airflow-one-mutation',
  text: 'Airflow (the test plan row): retries=3, worker/pod loss, XCom loss -> one operation and one target mutation, decided by a real Airflow scheduler',
  evaluate(cells) {
    const live = cells.filter((cell) => cell.fault.kind === 'airflow-live');
    const failed = allPass(live, 'airflow-live');
    if (failed) {
      const example = live.find((cell) => cell.verdict !== 'PASS');
      return example ? { ...failed, detail: `${failed.detail}${firstProblem(example)}` } : failed;
    }
    const unrecorded = live.filter((cell) => !cell.airflow);
    if (unrecorded.length > 0)
      return { status: 'FAIL', detail: `${unrecorded[0]!.id} has no record of what Airflow did` };
    const cases = new Set(live.map((cell) => String(cell.fault.case)));
    const missing = AIRFLOW_REQUIRED_CASES.filter((name) => !cases.has(name));
    if (missing.length > 0)
      return { status: 'UNVERIFIED', detail: `no airflow-live cell for ${missing.join(', ')}` };
    const tries = live.map(
      (cell) =>
        new Set(cell.airflow!.runs.flatMap((run) => run.tries.map((t) => `${run.run_id}#${t.try_number}`)))
          .size,
    );
    const runs = live.map((cell) => new Set(cell.airflow!.runs.map((run) => run.run_id)).size);
    const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
    return {
      status: 'PASS',
      detail: `${live.length} airflow-live cells PASS on Airflow ${live[0]!.airflow!.version}: ${sum(runs)} DAG runs, ${sum(tries)} task tries (up to ${Math.max(...tries)} in a cell), each cell one operation and at most one mutation`,
    };
  },
};

/** The spec's "Mandatory acceptance" list, in its order, then issue 10's lost-journal item and the test plan's Airflow row. */
export const ACCEPTANCE_ITEMS: readonly AcceptanceItem[] = [
  killAtEveryTransition,
  twoWorkers,
  intentConflict,
  unknownNeverSuccess,
  liveUnverified,
  journalLossItem,
  airflowLive,
];
