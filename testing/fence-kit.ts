import type { FenceRef, MutationRequest, Row, TargetConnector } from '../src/ports/connector.ts';
import type { FaultPoints } from '../src/ports/fault-points.ts';
import { rowStreamOf } from '../src/ports/row-stream.ts';

/**
 * What every check of the connector kit shares (fence-conformance.ts, fence-atomicity.ts): the
 * subject a factory opens, the fence it is asked about and the rows it writes.
 */

/** One fresh target (its own fence, its own table) and a way to count the target table's rows. */
export interface FenceUnderTest extends AsyncDisposable {
  readonly target: TargetConnector;
  /** Rows in the target table, read past the connector (how many times data landed). */
  rows(): Promise<number>;
}

/** What a check hands the factory. */
export interface FenceFactoryOptions {
  /**
   * The fault points the target must pass (a plug-in: `context.faults` of `open`). The atomicity
   * checks crash the mutation through them; a factory that drops them fails those checks.
   */
  readonly faults: FaultPoints;
  /**
   * For a factory to call after each statement its database driver returned from (BEGIN, each
   * insert, COMMIT): wired in, it lets the crash check land between two statements that one call
   * of the target sends, such as the data's COMMIT and a fence committed after it inside one
   * `commit()`, which no fault point separates. Not wired, the check crashes at fault points only.
   */
  readonly afterDriverStatement: () => Promise<void>;
}

export type FenceFactory = (options?: FenceFactoryOptions) => Promise<FenceUnderTest>;

/** One check of the contract: throws (an assertion error) when the target breaks it. */
export interface FenceCheck {
  readonly name: string;
  run(factory: FenceFactory): Promise<void>;
}

export const OP = `sha256:${'e'.repeat(64)}`;
export const INTENT = `sha256:${'1'.repeat(64)}`;
export const OTHER_INTENT = `sha256:${'2'.repeat(64)}`;

export const fenceRef = (epoch: number, holder = `h${epoch}`, intentDigest = INTENT): FenceRef => ({
  operationId: OP,
  epoch,
  intentDigest,
  holder,
});

/** The rows every conformance mutation writes: two rows of partition p1. */
export const CONFORMANCE_COLUMNS = ['id', 'part', 'v'] as const;
export const CONFORMANCE_ROWS: readonly Row[] = [
  ['1', 'p1', 'a'],
  ['2', 'p1', 'b'],
];

/** The conformance mutation: CONFORMANCE_ROWS appended to partition p1 (or another stream of them). */
export const write = (
  fence: FenceRef,
  rows: MutationRequest['rows'] = rowStreamOf(CONFORMANCE_COLUMNS, CONFORMANCE_ROWS),
): MutationRequest => ({
  fence,
  strategy: 'append',
  partitionColumn: 'part',
  partitionValue: 'p1',
  rows,
});
