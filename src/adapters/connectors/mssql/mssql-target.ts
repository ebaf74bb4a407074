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
import { parseMssqlConnectorUrl } from './mssql-connector-config.ts';
import { fenceUnavailable, installFence, markCommitted, readFence } from './mssql-fence.ts';
import { deletePartition, ensureTargetTables, insertRows } from './mssql-rows.ts';
import type { LoadMssqlDriver, MssqlTransaction } from './mssql-session.ts';
import { MssqlSession } from './mssql-session.ts';

export interface MssqlTargetOptions {
  /** `mssql://user@host:port/database?encrypt=&trustServerCertificate=` (no password in it). */
  readonly url: string;
  /** From the environment variable the workload names; never from the URL. */
  readonly password?: string;
  readonly table: string;
  readonly columns: readonly string[];
  /** Kept for the checker; the target table has no unique key on purpose. */
  readonly naturalKey: readonly string[];
  readonly faults?: FaultPoints;
  /** Selects a harness-only unsafe variant (DPONE_HARNESS=1 + DPONE_UNSAFE_VARIANT); default process.env. */
  readonly env?: NodeJS.ProcessEnv;
  /** Unit tests hand in a fake of the driver slice; default: the real `mssql` driver. */
  readonly loadDriver?: LoadMssqlDriver;
}

/**
 * Sends COMMIT with fault points around it. The driver hands the commit request to its connection
 * one event-loop turn after `commit()` is called, so two turns pass before `target.commit:sent`: a
 * kill there leaves the server to decide alone, and only the fence can tell what it decided.
 */
export async function commitWithPoints(tx: MssqlTransaction, faults: FaultPoints): Promise<void> {
  await faults.hit('target.commit:before');
  const reply = tx.commit();
  reply.catch(() => undefined);
  for (let turn = 0; turn < 2; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
  await faults.hit('target.commit:sent');
  await reply;
  await faults.hit('target.commit:after');
}

/** A driver error during the mutation proves nothing about its outcome: the executor asks the fence. */
export function commitUnknown(operationId: string, error: unknown): DponeError {
  return new DponeError(
    ERROR_CODES.COMMIT_UNKNOWN,
    'the MSSQL target mutation did not return; only the fence can tell whether it committed',
    { operationId },
    { cause: error },
  );
}

/**
 * The MSSQL route's target. Capability: a transactional commit marker — the fence row turns
 * committed in the same transaction as the data, guarded by the lease epoch (the transaction's
 * first statement, holding the row lock), so a replay under a stale epoch or a zombie writes nothing.
 */
export class MssqlTarget implements TargetConnector {
  readonly identity: string;
  readonly capability: FenceCapabilityKind = 'transactional-commit-marker';
  readonly #session: MssqlSession;
  readonly #options: MssqlTargetOptions;
  readonly #faults: FaultPoints;

  private constructor(session: MssqlSession, options: MssqlTargetOptions) {
    this.#session = session;
    this.#options = options;
    this.#faults = options.faults ?? NO_FAULTS;
    this.identity = `mssql:${options.table}`;
  }

  /**
   * Connects and creates the fence and target tables when missing; an unreachable server is
   * FENCE_UNAVAILABLE. Under DPONE_HARNESS=1, DPONE_UNSAFE_VARIANT selects a broken variant.
   */
  static async open(options: MssqlTargetOptions): Promise<TargetConnector> {
    const env = options.env ?? process.env;
    if (env.DPONE_HARNESS === '1' && env.DPONE_UNSAFE_VARIANT) {
      const { openUnsafeMssqlTarget } = await import('./mssql-unsafe-variants.ts');
      return openUnsafeMssqlTarget(env.DPONE_UNSAFE_VARIANT, options);
    }
    return new MssqlTarget(await openTargetSession(options), options);
  }

  async prepareFence(fence: FenceRef): Promise<FenceEvidence> {
    try {
      return await this.#session.use((pool, driver) => installFence(pool, driver, fence, Date.now()));
    } catch (error) {
      if (isDponeError(error)) throw error;
      throw fenceUnavailable(fence.operationId, error);
    }
  }

  async mutate(request: MutationRequest): Promise<MutationReceipt> {
    const { fence, batch } = request;
    const table = this.#options.table;
    await this.#faults.hit('target.mutate:begin');
    try {
      return await this.#session.use(async (pool, driver) => {
        const tx = pool.transaction();
        await tx.begin(driver.ISOLATION_LEVEL.READ_COMMITTED);
        let committing = false;
        try {
          // The guard comes first: a stale epoch is refused before a single row is written.
          await markCommitted(tx.request(), fence, batch.rows.length, Date.now());
          if (request.strategy === 'replace-partition') {
            await deletePartition(tx.request(), table, request.partitionColumn, request.partitionValue);
          }
          const rowsWritten = await insertRows(() => tx.request(), table, batch);
          committing = true;
          await commitWithPoints(tx, this.#faults);
          return { rowsWritten, epoch: fence.epoch };
        } catch (error) {
          // Before COMMIT was sent, roll back (FENCED: nothing was written) and so hand the
          // connection back; once it was sent, only the fence can tell what the server decided.
          if (!committing) await tx.rollback().catch(() => undefined);
          throw error;
        }
      });
    } catch (error) {
      if (isDponeError(error)) throw error;
      throw commitUnknown(fence.operationId, error);
    }
  }

  async queryFence(operationId: string): Promise<FenceAnswer> {
    try {
      return await this.#session.use((pool) => readFence(pool.request(), operationId));
    } catch (error) {
      throw fenceUnavailable(operationId, error);
    }
  }

  async close(): Promise<void> {
    await this.#session.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

/** Opens the session and the tables; shared with the unsafe variants so they differ only in the protocol. */
export async function openTargetSession(options: MssqlTargetOptions): Promise<MssqlSession> {
  const session = new MssqlSession(
    parseMssqlConnectorUrl(options.url, options.password, 'target.url', 'dpone-target'),
    options.loadDriver,
  );
  try {
    await session.use((pool) => ensureTargetTables(pool, options.table, options.columns));
    return session;
  } catch (error) {
    await session.close();
    if (isDponeError(error)) throw error;
    throw fenceUnavailable(undefined, error);
  }
}
