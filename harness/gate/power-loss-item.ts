import { targetsSqlite } from '../../src/contracts/certification.ts';
import type { CellEvidence } from '../evidence/evidence-types.ts';
import { POWER_LOSS_DURABLE } from '../evidence/check-names.ts';
import type { AcceptanceItem } from './acceptance-item.ts';
import { allPass, decidedBy, mutations } from './cell-verdicts.ts';

const durable = (cell: CellEvidence) =>
  cell.checks.some((check) => check.name === POWER_LOSS_DURABLE && check.verdict === 'PASS');

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
  appliesTo: targetsSqlite,
  evaluate(cells) {
    const cuts = cells.filter((cell) => cell.fault.kind === 'power-loss');
    const failed = allPass(cuts, 'power-loss');
    if (failed) return failed;
    const wrong = cuts.filter((cell) => !durable(cell) || mutations(cell) !== 1);
    if (wrong.length > 0)
      return {
        status: 'FAIL',
        ...decidedBy(wrong),
        detail: `${wrong[0]!.id}: no passing ${POWER_LOSS_DURABLE} check, or not exactly one mutation`,
      };
    const points = new Set(cuts.map((cell) => String(cell.fault.point))).size;
    return {
      status: 'PASS',
      ...decidedBy(cuts),
      detail: `${cuts.length} power-loss cells PASS at ${points} journal transition points: every committed transition survived the cut, one mutation each`,
    };
  },
};
