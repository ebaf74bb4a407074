import type { AcceptanceItem } from './acceptance-item.ts';
import { allPass, decidedBy, mutations, transitionsSeen } from './cell-verdicts.ts';

/** The acceptance items of the spec decided from crash, race/pause and unrun cells. */
export const killAtEveryTransition: AcceptanceItem = {
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

export const twoWorkers: AcceptanceItem = {
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

export const liveUnverified: AcceptanceItem = {
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
