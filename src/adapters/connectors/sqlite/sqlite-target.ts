import { DponeError, ERROR_CODES, isDponeError } from '../../../contracts/errors.ts';
import type {
  FenceAnswer,
  FenceCapabilityKind,
  FenceEvidence,
  FenceRef,
  MutationReceipt,
  MutationRequest,
  TargetConnector,
} from '../../../ports/connector.ts';
import type { FaultPoints } from '../../../ports/fault-points.ts';
import { NO_FAULTS } from '../../../ports/fault-points.ts';
import type { SqliteDatabase } from './sqlite-connection.ts';
import { openSqlite, rollbackQuietly } from './sqlite-connection.ts';
import {
  ensureFenceTable,
  fenceUnavailable,
  installFence,
  markCommitted,
  readFence,
} from './sqlite-fence.ts';
import { deletePartition, ensureTargetTable, insertRows } from './sqlite-rows.ts';

export interface SqliteTargetOptions {
  /** Path of the target database file. */
  readonly path: string;
  readonly table: string;
  /** The workload's columns; the table is created with them when missing. */
  readonly columns: readonly string[];
  /** Kept for the checker and for documentation; the target table has no unique key on purpose. */
  readonly naturalKey: readonly string[];
  readonly faults?: FaultPoints;
  readonly nowMs?: () => number;
}

/** Opens the file and creates the fence and target tables; a driver failure is FENCE_UNAVAILABLE. */
export function openTargetDatabase(options: SqliteTargetOptions): SqliteDatabase {
  try {
    const db = openSqlite(options.path);
    ensureFenceTable(db);
    ensureTargetTable(db, options.table, options.columns);
    return db;
  } catch (error) {
    throw new DponeError(
      ERROR_CODES.FENCE_UNAVAILABLE,
      'the SQLite target could not be opened',
      {},
      { cause: error },
    );
  }
}

/**
 * The embedded route's target. Capability: a transactional commit marker — the fence row turns
 * committed in the same transaction as the data, guarded by the lease epoch, so a replay is refused
 * and a zombie holding an old epoch writes nothing.
 */
export class SqliteTarget implements TargetConnector {
  readonly identity: string;
  readonly capability: FenceCapabilityKind = 'transactional-commit-marker';
  readonly #db: SqliteDatabase;
  readonly #options: SqliteTargetOptions;
  readonly #faults: FaultPoints;
  readonly #now: () => number;

  private constructor(db: SqliteDatabase, options: SqliteTargetOptions) {
    this.#db = db;
    this.#options = options;
    this.#faults = options.faults ?? NO_FAULTS;
    this.#now = options.nowMs ?? Date.now;
    this.identity = `sqlite:${options.table}`;
  }

  static async open(options: SqliteTargetOptions): Promise<SqliteTarget> {
    return new SqliteTarget(openTargetDatabase(options), options);
  }

  async prepareFence(fence: FenceRef): Promise<FenceEvidence> {
    try {
      return installFence(this.#db, fence, this.#now());
    } catch (error) {
      if (isDponeError(error)) throw error;
      throw fenceUnavailable(fence.operationId, error);
    }
  }

  async mutate(request: MutationRequest): Promise<MutationReceipt> {
    const db = this.#db;
    const { fence, batch } = request;
    await this.#faults.hit('target.mutate:begin');
    try {
      db.exec('BEGIN IMMEDIATE');
      // The guard comes first: a stale epoch is refused before a single row is written.
      markCommitted(db, fence, batch.rows.length, this.#now());
      if (request.strategy === 'replace-partition') {
        deletePartition(db, this.#options.table, request.partitionColumn, request.partitionValue);
      }
      const rowsWritten = insertRows(db, this.#options.table, batch);
      await this.#faults.hit('target.commit:before');
      db.exec('COMMIT');
      await this.#faults.hit('target.commit:after');
      return { rowsWritten, epoch: fence.epoch };
    } catch (error) {
      rollbackQuietly(db);
      if (isDponeError(error)) throw error;
      // A driver error proves nothing about the outcome; the executor asks the fence.
      throw new DponeError(
        ERROR_CODES.COMMIT_UNKNOWN,
        'the SQLite target mutation did not return; only the fence can tell whether it committed',
        { operationId: fence.operationId },
        { cause: error },
      );
    }
  }

  async queryFence(operationId: string): Promise<FenceAnswer> {
    try {
      return readFence(this.#db, operationId);
    } catch (error) {
      throw fenceUnavailable(operationId, error);
    }
  }

  async close(): Promise<void> {
    if (this.#db.isOpen) this.#db.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
