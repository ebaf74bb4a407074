import type { CellEvidence, Evidence } from '../evidence/evidence-types.ts';
import type { Verdict } from '../verdict.ts';
import { airflowItem } from './airflow-item.ts';
import { clockSkewItem } from './clock-skew-item.ts';
import { allPass, decidedBy, mutations, transitionsSeen } from './cell-verdicts.ts';
import { intentConflictItem } from './intent-item.ts';
import { journalLossItem } from './journal-loss-item.ts';
import { unknownNeverSuccess } from './unknown-item.ts';
import { lostCommitItem, poolerItem, stallItem } from './postgres-items.ts';

/** What decided a gate line: its status, how many cells decided it, and why. */
export interface ItemVerdict {
  readonly status: Verdict;
  /** Cells that decided the line; a line decided by zero cells is never PASS. */
  readonly cells: number;
  /** The ids of those cells, for an acceptance item (the certification record lists them). */
  readonly decided_by?: readonly string[];
  readonly detail: string;
}

/** One gate line: an acceptance item (or a precondition) and what the evidence says about it. */
export interface GateItemResult extends ItemVerdict {
  readonly id: string;
}

/** A mandatory acceptance item of the spec and how it is decided from one route's cells. */
export interface AcceptanceItem {
  readonly id: string;
  /** The spec's wording. */
  readonly text: string;
  /** Absent: every route. Else only routes it returns true for (a line of one engine's). */
  readonly appliesTo?: (route: string) => boolean;
  /** `environment` is the evidence's (e.g. the loss modes the route declared). */
  evaluate(cells: readonly CellEvidence[], environment?: Evidence['environment']): ItemVerdict;
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
      return {
        status: 'UNVERIFIED',
        ...decidedBy(crash),
        detail: `no kill at transition(s) ${uncovered.sort().join(', ')}`,
      };
    return {
      status: 'PASS',
      ...decidedBy(crash),
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
    if (races.length === 0)
      return { status: 'FAIL', cells: 0, detail: 'no race cell (two or more workers) in the evidence' };
    const failed = allPass([...races, ...pauses], 'race/pause');
    if (failed) return failed;
    const sizes = [...new Set(races.map((cell) => cell.fault.workers ?? 2))].sort((a, b) => a - b);
    return {
      status: 'PASS',
      ...decidedBy([...races, ...pauses]),
      detail: `${races.length} race cells (${sizes.join(', ')} workers) and ${pauses.length} pause cells PASS, each one mutation`,
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
        ...decidedBy(claimed),
        detail: `${claimed[0]!.id} is PASS without a run, target or journal snapshot`,
      };
    return {
      status: 'PASS',
      ...decidedBy(cells),
      detail: `every PASS cell ran; ${unrun.length} cell(s) without a run are not PASS`,
    };
  },
};

/**
 * The spec's "Mandatory acceptance" list, in its order, then issue 10's lost-journal item, the
 * test plan's Airflow row and issue 30's clock item.
 */
export const ACCEPTANCE_ITEMS: readonly AcceptanceItem[] = [
  killAtEveryTransition,
  twoWorkers,
  intentConflictItem,
  unknownNeverSuccess,
  liveUnverified,
  journalLossItem,
  airflowItem,
  poolerItem,
  lostCommitItem,
  stallItem,
  clockSkewItem,
];
