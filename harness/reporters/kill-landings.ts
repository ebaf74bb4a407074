import type { CellEvidence, Evidence } from '../evidence/evidence-types.ts';

/** Per scenario: how many of its mutation-window kills landed while the rows were being written. */
export interface KillLandings {
  readonly scenario: string;
  /** Kills that ran (the worker passed the window's begin point and was killed or ended). */
  readonly kills: number;
  readonly inside: number;
  /** Landed after the window's end point, or after the worker had exited: machine noise, said plainly. */
  readonly outside: number;
}

function isWindowKill(cell: CellEvidence): boolean {
  return cell.fault.kind === 'crash' && typeof cell.fault.after_point === 'string';
}

/** From the cells' own fault records (`landed`), scenarios in evidence order; none without such kills. */
export function killLandings(evidence: Evidence): KillLandings[] {
  const byScenario = new Map<string, { kills: number; inside: number; outside: number }>();
  for (const cell of evidence.cells) {
    if (cell.variant !== null || !isWindowKill(cell) || typeof cell.fault.landed !== 'string') continue;
    const counts = byScenario.get(cell.scenario) ?? { kills: 0, inside: 0, outside: 0 };
    counts.kills += 1;
    if (cell.fault.landed === 'inside-mutation') counts.inside += 1;
    else counts.outside += 1;
    byScenario.set(cell.scenario, counts);
  }
  return [...byScenario].map(([scenario, counts]) => ({ scenario, ...counts }));
}

/** `large-partition: 3 of 4 kills landed inside the mutation (1 outside)`, one per scenario. */
export function killLandingLines(evidence: Evidence): string[] {
  return killLandings(evidence).map(
    ({ scenario, kills, inside, outside }) =>
      `${scenario}: ${inside} of ${kills} random kills landed inside the mutation` +
      (outside > 0
        ? ` (${outside} outside it: the machine ran slower or faster than the reference run)`
        : ''),
  );
}
