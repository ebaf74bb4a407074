import type { CommitJournalEntry, JournalHistoryRecord } from '../../src/contracts/journal.ts';
import type {
  AttemptRecord,
  CellExpectation,
  CheckRecord,
  JournalSnapshot,
  LossObservation,
  TargetSnapshot,
} from '../evidence/evidence-types.ts';
import type { Verdict } from '../verdict.ts';

/** The journal as read after the cell: the operation's entry and its full history. */
export interface JournalRecords {
  readonly entry: CommitJournalEntry | null;
  readonly history: readonly JournalHistoryRecord[];
}

/**
 * What `checkCell` and `recheckCell` return. Spread it into the CellEvidence: verdict, checks,
 * target, journal and expectation are the fields of the same names.
 */
export interface CheckCellResult {
  readonly verdict: Verdict;
  readonly checks: readonly CheckRecord[];
  readonly target: TargetSnapshot | null;
  readonly journal: JournalSnapshot | null;
  readonly expectation: CellExpectation;
}

/** Everything a checker sees: stored snapshots only, so the live check and the re-check agree. */
export interface CheckContext {
  readonly target: TargetSnapshot | null;
  /** Why the target could not be read, when `target` is null. */
  readonly targetError?: string;
  readonly journal: JournalSnapshot | null;
  readonly journalError?: string;
  readonly attempts: readonly AttemptRecord[];
  readonly expectation: CellExpectation;
  /** Loss cells only: the loss checkers run when it is present. */
  readonly loss?: LossObservation;
}

/** A checker: a pure function of the context returning one record. It may throw; the composer turns that into UNKNOWN. */
export interface Checker {
  readonly name: string;
  /** Whether the checker applies to this cell (absent: always). */
  applies?(context: CheckContext): boolean;
  check(context: CheckContext): CheckRecord;
}
