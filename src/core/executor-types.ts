import type { CommitIntentMetadata, CommitJournalEntry } from '../contracts/journal.ts';
import type { CommitState } from '../contracts/states.ts';
import type { Clock } from '../ports/clock.ts';
import type { FenceAnswer, LoadStrategy, SourceConnector, TargetConnector } from '../ports/connector.ts';
import type { FaultPoints } from '../ports/fault-points.ts';
import type { TargetCommitJournalPort } from '../ports/journal.ts';
import type { StateSink } from '../ports/state-sink.ts';
import type { RuntimeFlaws } from '../ports/unsafe-variants.ts';

export interface ExecutorDeps {
  readonly journal: TargetCommitJournalPort;
  readonly source: SourceConnector;
  readonly target: TargetConnector;
  readonly state: StateSink;
  readonly faults: FaultPoints;
  readonly clock: Clock;
  /** DELIBERATELY BROKEN behaviour for the harness's sensitivity check only (DPONE_HARNESS=1); absent: none. */
  readonly flaws?: RuntimeFlaws;
}

export interface OperationRequest {
  readonly operationId: string;
  readonly intentDigest: string;
  /** Recorded with a new intent; `fence_location` is compared with the journal's on every run. */
  readonly metadata: CommitIntentMetadata;
  readonly strategy: LoadStrategy;
  readonly partitionColumn: string;
  readonly partitionValue: string;
  /** This executor's lease holder name; not part of any identity. */
  readonly holder: string;
  readonly leaseTtlMs: number;
  /**
   * False: an entry found COMPLETE is not confirmed against the target's fence (`target.confirm_complete:
   * false`). Default true: the fence is read once, and a commit the target lost stops the run (DIVERGED).
   */
  readonly confirmComplete?: boolean;
}

/** How the operation ended for this attempt. Only `committed` and `already-complete` are success. */
export interface ExecutionOutcome {
  readonly status: 'committed' | 'already-complete' | 'completed-after-recovery';
  readonly operationId: string;
  readonly state: CommitState;
  readonly version: number;
  readonly rowsWritten: number;
  readonly fenceEpoch: number;
  /** Whether this attempt's own write is what the target fence proves committed. */
  readonly mutated: boolean;
}

/** The fence as a step found it, under the lease it holds now. */
export interface Fenced {
  readonly entry: CommitJournalEntry;
  readonly answer: FenceAnswer;
}

/** What a commit or a reconciliation left, and whether this attempt's own write is proven. */
export interface Settled {
  readonly entry: CommitJournalEntry;
  readonly mutated: boolean;
  /** The fence proved a commit this journal did not know of (no write of ours). */
  readonly adopted: boolean;
}
