import type {
  AttemptRecord,
  CellExpectation,
  CheckRecord,
  JournalSnapshot,
  LossObservation,
  TargetSnapshot,
} from '../evidence/evidence-types.ts';
import { describeError } from '../evidence/error-description.ts';
import { DEFAULT_EXPECTATION, evaluateCell } from '../checkers/check-cell.ts';
import type { CheckCellResult, CheckContext, JournalRecords } from '../checkers/check-types.ts';
import { journalSnapshot } from '../checkers/journal-history-checker.ts';
import type { TargetInspector } from './target-inspector.ts';

/** Input of `checkCell`. */
export interface CheckCellInput {
  /** Reads the target itself; `snapshot()` is called once. */
  readonly inspector: TargetInspector;
  /** The journal after the cell, or null when it could not be read (journal checks become UNKNOWN). */
  readonly journal: JournalRecords | null;
  /** Why the journal could not be read, when `journal` is null (safe text: no URL, no SQL). */
  readonly journalError?: string;
  /** Every worker attempt of the cell, in start order (the settle worker included). */
  readonly attempts: readonly AttemptRecord[];
  /** Absent: `{ end: 'complete' }`. */
  readonly expectation?: CellExpectation;
  /** Checks the runner made itself (e.g. "a worker could not start"); they join the worst-wins. */
  readonly extraChecks?: readonly CheckRecord[];
  /** Loss cells: what the fault observed at the end (the fence as read by the harness, inspect). */
  readonly loss?: LossObservation;
}

/**
 * Checks one cell after its last worker ended: snapshots the target through the harness's own
 * inspector, reduces the journal to its stored form, and runs every checker on those snapshots
 * (so `recheckCell` on the stored evidence reaches the same verdict). Never throws.
 */
export async function checkCell(input: CheckCellInput): Promise<CheckCellResult> {
  let target: TargetSnapshot | null = null;
  let targetError: string | undefined;
  try {
    target = await input.inspector.snapshot();
  } catch (error) {
    targetError = describeError(error);
  }
  let journal: JournalSnapshot | null = null;
  let journalError = input.journalError;
  if (input.journal !== null) {
    try {
      journal = journalSnapshot(input.journal);
    } catch (error) {
      journalError = describeError(error);
    }
  }
  const context: CheckContext = {
    target,
    journal,
    attempts: input.attempts,
    expectation: input.expectation ?? DEFAULT_EXPECTATION,
    ...(targetError !== undefined ? { targetError } : {}),
    ...(journalError !== undefined ? { journalError } : {}),
    ...(input.loss !== undefined ? { loss: input.loss } : {}),
  };
  return evaluateCell(context, input.extraChecks ?? []);
}
