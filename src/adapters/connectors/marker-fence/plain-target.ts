import type { DponeError } from '../../../contracts/errors.ts';
import { isDponeError } from '../../../contracts/errors.ts';
import type {
  FenceAnswer,
  FenceCapabilityKind,
  FenceEvidence,
  FenceRef,
  MutationReceipt,
  MutationRequest,
  TargetConnector,
} from '../../../ports/connector.ts';
import { noFenceAnswer } from '../../../ports/connector.ts';
import type { FaultPoints } from '../../../ports/fault-points.ts';
import { NO_FAULTS } from '../../../ports/fault-points.ts';
import { StatementPoints } from '../../../ports/statement-points.ts';
import type { MarkerDialect } from './marker-dialect.ts';
import { commitUnknown } from './marker-fence.ts';
import { observedDialect } from './statement-dialect.ts';

/** Where a target without a fence keeps it: nowhere (recorded in the journal like any location). */
export const NO_FENCE_LOCATION = 'none';

/**
 * A SQL target WITHOUT a fence: the capability `none` of the spec, what a connector is before any
 * fence is certified for it. It writes the batch in one plain transaction (replace-partition: the
 * partition's delete in the same one) and can prove nothing afterwards, so every run that began
 * the mutation ends COMMIT_UNKNOWN and only an operator settles it (`dpone recovery target-commit`).
 * It uses a database's marker dialect for the transaction and its fault points, and never reads
 * or writes a fence table.
 */
export class PlainTarget implements TargetConnector {
  readonly identity: string;
  readonly capability: FenceCapabilityKind = 'none';
  readonly fenceLocation = NO_FENCE_LOCATION;
  readonly #dialect: MarkerDialect;
  readonly #faults: FaultPoints;
  readonly #statements: StatementPoints;

  constructor(dialect: MarkerDialect, options: { readonly identity: string; readonly faults?: FaultPoints }) {
    this.#faults = options.faults ?? NO_FAULTS;
    this.#statements = new StatementPoints(this.#faults);
    this.#dialect = observedDialect(dialect, this.#statements);
    this.identity = options.identity;
  }

  /** No fence to install: nothing is sent to the target, and the answer says there is none. */
  async prepareFence(fence: FenceRef): Promise<FenceEvidence> {
    return { ...noFenceAnswer(fence.holder), installed: false };
  }

  async mutate(request: MutationRequest): Promise<MutationReceipt> {
    const { fence } = request;
    await this.#faults.hit('target.mutate:begin');
    this.#statements.begin('mutate');
    try {
      return await this.#dialect.mutation(async (tx): Promise<MutationReceipt> => {
        if (request.strategy === 'replace-partition')
          await tx.deletePartition(request.partitionColumn, request.partitionValue);
        const rowsWritten = await tx.insertRows(request.rows);
        await this.#faults.hit('target.commit:before');
        await tx.commit();
        await this.#faults.hit('target.commit:after');
        return { applied: true, rowsWritten, epoch: fence.epoch };
      });
    } catch (error) {
      if (isDponeError(error)) throw error;
      const fallback: DponeError = commitUnknown(this.#dialect.label, fence.operationId, error);
      throw this.#dialect.refineError?.('mutate', error, fallback) ?? fallback;
    }
  }

  /** Nothing to read: a target without a fence cannot prove any outcome. */
  async queryFence(): Promise<FenceAnswer> {
    return noFenceAnswer();
  }

  async close(): Promise<void> {
    await this.#dialect.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
