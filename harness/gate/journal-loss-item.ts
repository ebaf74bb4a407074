import type { CellEvidence, Evidence } from '../evidence/evidence-types.ts';
import type { AcceptanceItem, ItemVerdict } from './acceptance-item.ts';
import { isLossTransitionPoint } from '../faults/loss-points.ts';
import { allPass, decidedBy, mutations } from './cell-verdicts.ts';

export const LOSS_KINDS: ReadonlySet<string> = new Set(['journal-loss', 'fence-loss']);

/** `kind mode`, e.g. `journal-loss rollback`. */
function modeOf(cell: CellEvidence): string {
  return `${cell.fault.kind} ${String(cell.fault.mode ?? '?')}`;
}

/** The points a cell decided: its own and the durably equivalent ones it stands for. */
function pointsOf(cell: CellEvidence): string[] {
  const equivalent = Array.isArray(cell.fault.equivalent_points)
    ? (cell.fault.equivalent_points as string[])
    : [];
  return [...(cell.fault.point ? [`${cell.fault.point}#${cell.fault.hit ?? 1}`] : []), ...equivalent];
}

/** `cas:A->B` of a point `cas:A->B:side#hit`, else the point's name without side and hit. */
function transitionOf(point: string): string {
  const name = point.replace(/#\d+$/, '');
  return name.startsWith('cas:') ? name.replace(/:(before|after)$/, '') : name.replace(/:[a-z]+$/, '');
}

/**
 * The transitions every loss mode must have struck: those of the recorded clean trace, seen
 * independently of the loss cells in the points the depth-1 crash cells killed at (a transition
 * only a recovery run takes, e.g. COMMITTING -> PREPARED, is not the clean protocol's), and each
 * transition any loss cell was planned at (the intent's creation and the target commit included).
 */
function requiredTransitions(cells: readonly CellEvidence[], loss: readonly CellEvidence[]): Set<string> {
  const required = new Set<string>();
  for (const cell of cells)
    if (
      cell.fault.kind === 'crash' &&
      cell.fault.attempt === 1 &&
      cell.fault.point &&
      isLossTransitionPoint(cell.fault.point) &&
      // The loss modes run on the fenced configuration, whose clean run never reaches
      // COMMIT_UNKNOWN: that transition is the capability-none cells' (scenarios fenceless*).
      !transitionOf(cell.fault.point).endsWith('->COMMIT_UNKNOWN')
    )
      required.add(transitionOf(cell.fault.point));
  for (const cell of loss) for (const point of pointsOf(cell)) required.add(transitionOf(point));
  return required;
}

/**
 * A mode's cells must strike every required transition; fence-loss only once the fence exists,
 * so the intent's creation (before any fence) is not required of it.
 */
function uncovered(mode: string, own: readonly CellEvidence[], required: ReadonlySet<string>): string[] {
  const struck = new Set(own.flatMap(pointsOf).map(transitionOf));
  const needed = [...required].filter((t) => !(mode.startsWith('fence-loss') && t === 'journal.create'));
  return needed.filter((transition) => !struck.has(transition)).sort();
}

/** Modes the route declared (evidence environment `loss_modes`) that no cell decided. */
function declaredButMissing(
  environment: Evidence['environment'] | undefined,
  seen: ReadonlySet<string>,
): string[] {
  const declared = environment?.loss_modes as { journal?: string[]; fence?: string[] } | undefined;
  if (!declared) return [];
  const modes = [
    ...(declared.journal ?? []).map((mode) => `journal-loss ${mode}`),
    ...(declared.fence ?? []).map((mode) => `fence-loss ${mode}`),
  ];
  return modes.filter((mode) => !seen.has(mode));
}

/**
 * "A lost or rolled-back journal never gives a second mutation" (issue 10), decided by the
 * journal-loss and fence-loss cells: every one PASSes (UNVERIFIED is not PASS), none shows a
 * second mutation, every loss mode the route declares has cells, and each mode struck every
 * transition. Zero journal-loss cells is FAIL: the item would be decided by nothing.
 */
export const journalLossItem: AcceptanceItem = {
  id: 'journal-loss-one-mutation',
  text: 'a lost or rolled-back journal never gives a second mutation',
  evaluate(cells, environment): ItemVerdict {
    const loss = cells.filter((cell) => LOSS_KINDS.has(cell.fault.kind));
    if (!loss.some((cell) => cell.fault.kind === 'journal-loss'))
      return {
        status: 'FAIL',
        cells: 0,
        detail: 'no journal-loss cell in the evidence: nothing decided this item',
      };
    const byMode = new Map<string, CellEvidence[]>();
    for (const cell of loss) byMode.set(modeOf(cell), [...(byMode.get(modeOf(cell)) ?? []), cell]);
    // journal-loss before fence-loss, modes alphabetically: the same line for the same evidence.
    const counts = [...byMode]
      .sort(([a], [b]) =>
        a.startsWith('fence') === b.startsWith('fence') ? a.localeCompare(b) : a.startsWith('fence') ? 1 : -1,
      )
      .map(([mode, own]) => `${mode} ${own.length}`)
      .join(', ');
    const failed = allPass(loss, 'journal/fence-loss');
    if (failed) return { ...failed, detail: `${failed.detail} (${counts})` };
    const missing = declaredButMissing(environment, new Set(byMode.keys()));
    if (missing.length > 0)
      return {
        status: 'FAIL',
        ...decidedBy(loss),
        detail: `no cell for loss mode(s) the route supports: ${missing.join(', ')} (${counts})`,
      };
    const required = requiredTransitions(cells, loss);
    const gaps = [...byMode].flatMap(([mode, own]) =>
      uncovered(mode, own, required).map((transition) => `${mode} at ${transition}`),
    );
    if (gaps.length > 0)
      return {
        status: 'UNVERIFIED',
        ...decidedBy(loss),
        detail: `not struck: ${gaps.slice(0, 4).join('; ')}${gaps.length > 4 ? ` (+${gaps.length - 4} more)` : ''}`,
      };
    return {
      status: 'PASS',
      ...decidedBy(loss),
      detail: `${loss.length} cells PASS, max ${Math.max(...loss.map(mutations))} mutation: ${counts}; each mode at every one of ${required.size} transitions`,
    };
  },
};
