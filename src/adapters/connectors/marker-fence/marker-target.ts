import type { DponeError } from '../../../contracts/errors.ts';
import { isDponeError } from '../../../contracts/errors.ts';
import type {
  FenceAnswer,
  FenceCapabilityKind,
  FenceEvidence,
  FenceRef,
  MutationReceipt,
  MutationRequest,
  PrepareFenceMode,
  RowStream,
  TargetConnector,
} from '../../../ports/connector.ts';
import type { FaultPoints } from '../../../ports/fault-points.ts';
import { NO_FAULTS } from '../../../ports/fault-points.ts';
import { StatementPoints } from '../../../ports/statement-points.ts';
import type { MarkerDialect, SqlRunner } from './marker-dialect.ts';
import type { GuardOutcome } from './marker-fence.ts';
import { commitUnknown, fenceUnavailable, guardCommit, installFence, readFence } from './marker-fence.ts';
import { observedDialect } from './statement-dialect.ts';

/**
 * The steps of the marker protocol a target runs. The certified target uses MARKER_PROTOCOL; the
 * harness's deliberately broken variants (marker-unsafe-target.ts) swap single steps.
 */
export interface MarkerProtocol {
  prepare(
    dialect: MarkerDialect,
    fence: FenceRef,
    mode: PrepareFenceMode,
    nowMs: number,
  ): Promise<FenceEvidence>;
  /**
   * Runs first in the mutation's transaction, before any row is known; throws (nothing written)
   * or answers already-committed. The kernel records the row count in the same transaction.
   */
  guard(tx: SqlRunner, dialect: MarkerDialect, fence: FenceRef, nowMs: number): Promise<GuardOutcome>;
  /**
   * Unsafe only: replace-partition deletes the partition in a transaction of its own, committed
   * before the guarded one (the certified protocol deletes inside it, after the guard).
   */
  readonly deleteOutsideGuard?: boolean;
  /** Unsafe only: what the rows become on the way into the target (the certified one leaves them). */
  readonly rows?: (rows: RowStream) => RowStream;
  /** Runs in its own transaction after the data committed (only the split-marker flaw has one). */
  readonly afterCommit?: (
    dialect: MarkerDialect,
    fence: FenceRef,
    rows: number,
    nowMs: number,
  ) => Promise<void>;
  query(dialect: MarkerDialect, operationId: string): Promise<FenceAnswer>;
  /**
   * Unsafe only: how the statements reach the database (the two-commits flaw sends the fence's
   * COMMIT after the data's, inside one commit()). It wraps the dialect as the statement points see
   * it, so each statement it sends is still a place a kill can land.
   */
  readonly dialect?: (dialect: MarkerDialect) => MarkerDialect;
}

export const MARKER_PROTOCOL: MarkerProtocol = {
  prepare: (dialect, fence, mode, nowMs) => installFence(dialect, fence, mode, nowMs),
  guard: (tx, dialect, fence, nowMs) => guardCommit(tx, dialect.sql, fence, null, nowMs),
  query: (dialect, operationId) => readFence(dialect, operationId),
};

export interface MarkerTargetOptions {
  /** Safe identity, e.g. `<engine>:events` — never a connection string. */
  readonly identity: string;
  /** Where the fence table lives, e.g. `<engine>:dw._dpone_fence` (TargetConnector.fenceLocation). */
  readonly fenceLocation: string;
  readonly faults?: FaultPoints;
  readonly nowMs?: () => number;
}

/**
 * A target whose fence is a transactional commit marker: the fence row turns committed in the
 * same transaction as the data, behind a guard that is the transaction's first statement, so a
 * replay or a zombie writes nothing. Every marker target of the engine folders
 * (connectors/<engine>/) and of a plug-in is this class with its dialect.
 */
export class MarkerTarget implements TargetConnector {
  readonly identity: string;
  readonly capability: FenceCapabilityKind = 'transactional-commit-marker';
  readonly fenceLocation: string;
  readonly #dialect: MarkerDialect;
  readonly #protocol: MarkerProtocol;
  readonly #faults: FaultPoints;
  readonly #statements: StatementPoints;
  readonly #now: () => number;

  constructor(
    dialect: MarkerDialect,
    options: MarkerTargetOptions,
    protocol: MarkerProtocol = MARKER_PROTOCOL,
  ) {
    this.#faults = options.faults ?? NO_FAULTS;
    this.#statements = new StatementPoints(this.#faults);
    const observed = observedDialect(dialect, this.#statements);
    this.#dialect = protocol.dialect ? protocol.dialect(observed) : observed;
    this.#protocol = protocol;
    this.#now = options.nowMs ?? Date.now;
    this.identity = options.identity;
    this.fenceLocation = options.fenceLocation;
  }

  async prepareFence(fence: FenceRef, mode: PrepareFenceMode): Promise<FenceEvidence> {
    this.#statements.begin('prepare');
    try {
      return await this.#protocol.prepare(this.#dialect, fence, mode, this.#now());
    } catch (error) {
      if (isDponeError(error)) throw error;
      throw this.#refine('prepare', error, fenceUnavailable(this.#dialect.label, fence.operationId, error));
    }
  }

  async mutate(request: MutationRequest): Promise<MutationReceipt> {
    const { fence } = request;
    const protocol = this.#protocol;
    const dialect = this.#dialect;
    const rows = protocol.rows ? protocol.rows(request.rows) : request.rows;
    const replace = request.strategy === 'replace-partition';
    await this.#faults.hit('target.mutate:begin');
    this.#statements.begin('mutate');
    try {
      if (replace && protocol.deleteOutsideGuard)
        await dialect.mutation(async (tx) => {
          await tx.deletePartition(request.partitionColumn, request.partitionValue);
          await tx.commit();
        });
      const receipt = await dialect.mutation(async (tx): Promise<MutationReceipt> => {
        // The guard comes first: a refused commit writes not a single row.
        const guard = await protocol.guard(tx, dialect, fence, this.#now());
        if (!guard.applied) {
          await tx.rollback();
          const { answer } = guard;
          return { applied: false, rowsWritten: answer.rowsWritten ?? 0, epoch: answer.committedEpoch ?? 0 };
        }
        if (replace && !protocol.deleteOutsideGuard) {
          await tx.deletePartition(request.partitionColumn, request.partitionValue);
        }
        // The rows stream in chunk by chunk; the count lands in the fence in the same transaction.
        const rowsWritten = await tx.insertRows(rows);
        const { operationId, epoch } = fence;
        await tx.run(dialect.sql.recordRows, { operation_id: operationId, epoch, rows_written: rowsWritten });
        await this.#faults.hit('target.commit:before');
        await tx.commit();
        await this.#faults.hit('target.commit:after');
        return { applied: true, rowsWritten, epoch: fence.epoch };
      });
      if (receipt.applied && protocol.afterCommit) {
        await this.#faults.hit('target.marker:before');
        await protocol.afterCommit(this.#dialect, fence, receipt.rowsWritten, this.#now());
      }
      return receipt;
    } catch (error) {
      if (isDponeError(error)) throw error;
      throw this.#refine('mutate', error, commitUnknown(this.#dialect.label, fence.operationId, error));
    }
  }

  async queryFence(operationId: string): Promise<FenceAnswer> {
    this.#statements.begin('query');
    try {
      return await this.#protocol.query(this.#dialect, operationId);
    } catch (error) {
      if (isDponeError(error)) throw error;
      throw this.#refine('query', error, fenceUnavailable(this.#dialect.label, operationId, error));
    }
  }

  #refine(step: 'prepare' | 'mutate' | 'query', error: unknown, fallback: DponeError): DponeError {
    return this.#dialect.refineError?.(step, error, fallback) ?? fallback;
  }

  async close(): Promise<void> {
    await this.#dialect.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
