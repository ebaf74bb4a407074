import { ERROR_CODES } from '../../src/contracts/errors.ts';
import { STORAGE_UNTOUCHED } from '../evidence/check-names.ts';
import type { AcceptanceItem } from './acceptance-item.ts';
import { allPass, checkPassed, decidedBy } from './cell-verdicts.ts';

/**
 * "An intent digest conflict fails before source or target I/O", decided by what the storage
 * recorded, never by the conflicting worker's own trace: in every intent-conflict cell the route
 * made the source, target and fence storage unreachable for the conflicting attempt and the
 * harness found them untouched afterwards (check `storage-untouched`), and that attempt still
 * reported the intent-conflict code. A cell whose route cannot seal its storage is UNVERIFIED.
 */
export const intentConflictItem: AcceptanceItem = {
  id: 'intent-conflict-before-io',
  text: 'an intent digest conflict fails before source or target I/O',
  evaluate(cells) {
    const conflicts = cells.filter((cell) => cell.fault.kind === 'intent-conflict');
    const failed = allPass(conflicts, 'intent-conflict');
    if (failed) return failed;
    const unsealed = conflicts.filter((cell) => !checkPassed(cell, STORAGE_UNTOUCHED));
    if (unsealed.length > 0)
      return {
        status: 'UNVERIFIED',
        ...decidedBy(conflicts.filter((cell) => !unsealed.includes(cell))),
        detail: `${unsealed[0]!.id}: the storage was not sealed, so only the worker's own word says no I/O happened`,
      };
    const silent = conflicts.filter(
      (cell) => !cell.attempts.some((attempt) => attempt.error_code === ERROR_CODES.INTENT_CONFLICT),
    );
    if (silent.length > 0)
      return {
        status: 'FAIL',
        ...decidedBy(silent),
        detail: `${silent[0]!.id}: no attempt reported ${ERROR_CODES.INTENT_CONFLICT}`,
      };
    return {
      status: 'PASS',
      ...decidedBy(conflicts),
      detail: `${conflicts.length} cell(s): the conflicting attempt failed with ${ERROR_CODES.INTENT_CONFLICT} while source, target and fence were unreachable, and the storage shows them untouched`,
    };
  },
};
