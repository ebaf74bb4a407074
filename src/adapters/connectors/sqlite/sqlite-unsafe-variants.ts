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
import type { TargetFlaws } from '../../../ports/unsafe-variants.ts';
import {
  UNSAFE_VARIANTS,
  requestedUnsafeVariant,
  unsafeVariantFlaws,
} from '../../../ports/unsafe-variants.ts';
import type { SqliteDatabase } from './sqlite-connection.ts';
import { rollbackQuietly } from './sqlite-connection.ts';
import { fenceUnavailable, installFence, markCommitted, readFence } from './sqlite-fence.ts';
import { deletePartition, insertRows } from './sqlite-rows.ts';
import type { SqliteTargetOptions } from './sqlite-target.ts';
import { SqliteTarget, openTargetDatabase } from './sqlite-target.ts';

/**
 * DELIBERATELY BROKEN targets for the harness's sensitivity check: each must make the certification
 * FAIL. They are reachable only through `sqliteTargetForHarness` with DPONE_HARNESS=1; the runtime
 * never constructs them otherwise.
 */
type Flaws = TargetFlaws;

class UnsafeSqliteTarget implements TargetConnector {
  readonly identity: string;
  readonly capability: FenceCapabilityKind = 'transactional-commit-marker';
  readonly variant: string;
  readonly #db: SqliteDatabase;
  readonly #options: SqliteTargetOptions;
  readonly #flaws: Flaws;
  readonly #faults: FaultPoints;

  constructor(variant: string, flaws: Flaws, options: SqliteTargetOptions) {
    this.#db = openTargetDatabase(options);
    this.#options = options;
    this.#flaws = flaws;
    this.#faults = options.faults ?? NO_FAULTS;
    this.variant = variant;
    this.identity = `sqlite:${options.table}`;
  }

  async prepareFence(fence: FenceRef): Promise<FenceEvidence> {
    if (this.#flaws.noFence) return { epoch: fence.epoch, status: 'not-committed' };
    try {
      return installFence(this.#db, fence, Date.now(), !this.#flaws.ignoreEpoch);
    } catch (error) {
      if (isDponeError(error)) throw error;
      throw fenceUnavailable(fence.operationId, error);
    }
  }

  async mutate(request: MutationRequest): Promise<MutationReceipt> {
    const db = this.#db;
    const { fence, batch } = request;
    const guarded = !this.#flaws.noFence;
    await this.#faults.hit('target.mutate:begin');
    try {
      db.exec('BEGIN IMMEDIATE');
      if (guarded && !this.#flaws.splitMarker) this.#mark(fence, batch.rows.length);
      if (request.strategy === 'replace-partition') {
        deletePartition(db, this.#options.table, request.partitionColumn, request.partitionValue);
      }
      const rowsWritten = insertRows(db, this.#options.table, batch);
      await this.#faults.hit('target.commit:before');
      db.exec('COMMIT');
      await this.#faults.hit('target.commit:after');
      if (guarded && this.#flaws.splitMarker) {
        await this.#faults.hit('target.marker:before');
        db.exec('BEGIN IMMEDIATE');
        this.#mark(fence, rowsWritten);
        db.exec('COMMIT');
      }
      return { rowsWritten, epoch: fence.epoch };
    } catch (error) {
      rollbackQuietly(db);
      if (isDponeError(error)) throw error;
      throw new DponeError(ERROR_CODES.COMMIT_UNKNOWN, 'unsafe variant: mutation did not return', {
        operationId: fence.operationId,
      });
    }
  }

  #mark(fence: FenceRef, rows: number): void {
    markCommitted(this.#db, fence, rows, Date.now(), !this.#flaws.ignoreEpoch);
  }

  async queryFence(operationId: string): Promise<FenceAnswer> {
    if (this.#flaws.noFence)
      return { status: 'not-committed', epoch: null, committedEpoch: null, rowsWritten: null };
    let answer: FenceAnswer;
    try {
      answer = readFence(this.#db, operationId);
    } catch (error) {
      throw fenceUnavailable(operationId, error);
    }
    if (this.#flaws.queryLies && answer.status === 'committed') {
      return { status: 'not-committed', epoch: answer.epoch, committedEpoch: null, rowsWritten: null };
    }
    return answer;
  }

  async close(): Promise<void> {
    if (this.#db.isOpen) this.#db.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

type VariantFactory = (options: SqliteTargetOptions) => Promise<TargetConnector>;

function variant(name: string, flaws: Flaws): VariantFactory {
  return async (options) => new UnsafeSqliteTarget(name, flaws, options);
}

/** The unsafe variants by name (the shared catalogue); each must be caught by the certification suite. */
export const UNSAFE_SQLITE_VARIANTS: Readonly<Record<string, VariantFactory>> = Object.fromEntries(
  Object.entries(UNSAFE_VARIANTS).map(([name, flaws]) => [name, variant(name, flaws)]),
);

/**
 * The SQLite target for a process the harness started: DPONE_UNSAFE_VARIANT=<name> selects an
 * unsafe variant, honoured only together with DPONE_HARNESS=1; otherwise the certified target.
 */
export async function sqliteTargetForHarness(
  options: SqliteTargetOptions,
  env: NodeJS.ProcessEnv = process.env,
): Promise<TargetConnector> {
  const name = requestedUnsafeVariant(env);
  if (name === null) return SqliteTarget.open(options);
  return variant(name, unsafeVariantFlaws(name))(options);
}
