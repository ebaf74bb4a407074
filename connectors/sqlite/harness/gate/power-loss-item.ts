import type { CellEvidence } from '../../../../harness/evidence/evidence-types.ts';
import { POWER_LOSS_DURABLE, POWER_LOSS_RECOVERY } from '../../../../harness/evidence/check-names.ts';
import type { AcceptanceItem, ItemVerdict } from '../../../../harness/gate/acceptance-item.ts';
import { decidedBy, eachPassesOnce } from '../../../../harness/gate/cell-verdicts.ts';

/** A power-loss cell's storage: the target's cells say so; every other one (also older evidence) is the journal's. */
const onTarget = (cell: CellEvidence) => cell.fault.kind === 'power-loss' && cell.fault.storage === 'target';
/** The journal's cells: storage journal, or none (older evidence); a server's cells have a line of their own. */
const onJournal = (cell: CellEvidence) =>
  cell.fault.kind === 'power-loss' && (cell.fault.storage ?? 'journal') === 'journal';

/**
 * The power-loss items' common rule (the storage lines' eachPassesOnce, in the items' words): every
 * cut PASSes, each with its own check PASS and exactly one mutation; else the item's FAIL.
 */
const cutsFailed = (
  cuts: readonly CellEvidence[],
  what: string,
  own: readonly string[],
): ItemVerdict | null => eachPassesOnce(cuts, what, own, `no passing ${own.join(' or ')} check`);

/**
 * Issue 33's item for routes whose target (and journal) is a SQLite file: a power cut at every
 * journal transition takes back nothing the killed attempt had committed, and the retry lands
 * exactly one mutation. Decided by the power-loss cells (scenarios/storage/): each PASSes with its
 * power-loss-durable check PASS and one mutation in the target's own rows. No cell is FAIL; cells
 * that could not mount the filesystem (no FUSE) are UNVERIFIED, and so is the item.
 */
export const powerLossItem: AcceptanceItem = {
  id: 'power-loss-journal-durable',
  text: 'a power cut at every journal transition (what was not fsynced is dropped) takes back no committed transition, and the retry lands exactly one mutation',
  evaluate(cells) {
    const cuts = cells.filter(onJournal);
    const failed = cutsFailed(cuts, 'power-loss', [POWER_LOSS_DURABLE]);
    if (failed) return failed;
    const points = new Set(cuts.map((cell) => String(cell.fault.point))).size;
    return {
      status: 'PASS',
      ...decidedBy(cuts),
      detail: `${cuts.length} power-loss cells PASS at ${points} journal transition points: every committed transition survived the cut, one mutation each`,
    };
  },
};

/**
 * Issue 33's item for the SQLite TARGET on the power-loss filesystem, for the same routes: a power
 * cut at every transition and inside the row write takes back nothing the killed attempt had
 * committed to the target, and the retry says what it found (writes the load exactly when it did
 * not survive) and lands exactly one mutation. Decided by the power-loss cells on the target
 * (scenarios/storage/sqlite-target-power-loss.yaml): each PASS with its power-loss-durable and
 * power-loss-recovery checks PASS and one mutation. No cell is FAIL; UNVERIFIED where FUSE is not.
 */
export const powerLossTargetItem: AcceptanceItem = {
  id: 'power-loss-target-durable',
  text: 'a power cut under the target at every transition and inside the row write takes back no committed mutation, and the retry writes the load exactly when it did not survive, landing exactly one mutation',
  evaluate(cells) {
    const cuts = cells.filter(onTarget);
    const failed = cutsFailed(cuts, 'power-loss (target)', [POWER_LOSS_DURABLE, POWER_LOSS_RECOVERY]);
    if (failed) return failed;
    const rewritten = cuts.filter((cell) => cell.fault.load_survived_cut === 0).length;
    return {
      status: 'PASS',
      ...decidedBy(cuts),
      detail: `${cuts.length} power-loss cells on the target PASS: every committed mutation survived the cut; ${rewritten} retries wrote a load the cut had not kept, the rest found it; one mutation each`,
    };
  },
};
