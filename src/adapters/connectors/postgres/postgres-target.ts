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
import { parsePostgresUrl } from './postgres-config.ts';
import { fenceUnavailable, installFence, markCommitted, readFence } from './postgres-fence.ts';
import { deletePartition, ensureTargetTables, insertRows } from './postgres-rows.ts';
import { PostgresSession } from './postgres-session.ts';

export interface PostgresTargetOptions {
  /** `postgres://user@host:port/db?connect_timeout_ms=&query_timeout_ms=` (password via `password`). */
  readonly url: string;
  readonly password?: string;
  readonly table: string;
  readonly columns: readonly string[];
  /** Kept for the checker; the target table has no unique key on purpose. */
  readonly naturalKey: readonly string[];
  readonly faults?: FaultPoints;
  /** Selects a harness-only unsafe variant (DPONE_HARNESS=1 + DPONE_UNSAFE_VARIANT); default process.env. */
  readonly env?: NodeJS.ProcessEnv;
}

/** Runs COMMIT so that a fault point sits between "COMMIT handed to the socket" and "reply observed". */
export async function commitWithPoints(
  client: { query(text: string): Promise<unknown> },
  faults: FaultPoints,
): Promise<void> {
  await faults.hit('target.commit:before');
  // node-postgres writes the COMMIT message to the socket synchronously inside query(); the
  // reply is only observed when we await it. A kill at `target.commit:sent` therefore leaves
  // the server to decide alone: committed or not, only the fence can tell.
  const reply = client.query('COMMIT');
  reply.catch(() => undefined);
  await faults.hit('target.commit:sent');
  await reply;
  await faults.hit('target.commit:after');
}

/**
 * The PostgreSQL route's target. Capability: a transactional commit marker — the fence row turns
 * committed in the same transaction as the data, guarded by the lease epoch (the transaction's
 * first statement, holding the row lock), so a replay or a zombie writes nothing.
 */
export class PostgresTarget implements TargetConnector {
  readonly identity: string;
  readonly capability: FenceCapabilityKind = 'transactional-commit-marker';
  readonly #session: PostgresSession;
  readonly #options: PostgresTargetOptions;
  readonly #faults: FaultPoints;

  private constructor(session: PostgresSession, options: PostgresTargetOptions) {
    this.#session = session;
    this.#options = options;
    this.#faults = options.faults ?? NO_FAULTS;
    this.identity = `postgres:${options.table}`;
  }

  /**
   * Connects and creates the fence and target tables when missing; an unreachable server is
   * FENCE_UNAVAILABLE. Under DPONE_HARNESS=1, DPONE_UNSAFE_VARIANT selects a broken variant.
   */
  static async open(options: PostgresTargetOptions): Promise<TargetConnector> {
    const env = options.env ?? process.env;
    if (env.DPONE_HARNESS === '1' && env.DPONE_UNSAFE_VARIANT) {
      const { openUnsafePostgresTarget } = await import('./postgres-unsafe-variants.ts');
      return openUnsafePostgresTarget(env.DPONE_UNSAFE_VARIANT, options);
    }
    const session = await openTargetSession(options);
    return new PostgresTarget(session, options);
  }

  async prepareFence(fence: FenceRef): Promise<FenceEvidence> {
    try {
      return await this.#session.use((client) => installFence(client, fence, Date.now()));
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
      return await this.#session.use(async (client) => {
        await client.query('BEGIN');
        try {
          // The guard comes first: a stale epoch is refused before a single row is written.
          await markCommitted(client, fence, batch.rows.length, Date.now());
          if (request.strategy === 'replace-partition') {
            await deletePartition(client, table, request.partitionColumn, request.partitionValue);
          }
          const rowsWritten = await insertRows(client, table, batch);
          await commitWithPoints(client, this.#faults);
          return { rowsWritten, epoch: fence.epoch };
        } catch (error) {
          if (isDponeError(error)) await client.query('ROLLBACK').catch(() => undefined);
          throw error;
        }
      });
    } catch (error) {
      if (isDponeError(error)) throw error;
      // A driver error proves nothing about the outcome; the executor asks the fence.
      throw new DponeError(
        ERROR_CODES.COMMIT_UNKNOWN,
        'the PostgreSQL target mutation did not return; only the fence can tell whether it committed',
        { operationId: fence.operationId },
        { cause: error },
      );
    }
  }

  async queryFence(operationId: string): Promise<FenceAnswer> {
    try {
      return await this.#session.use((client) => readFence(client, operationId));
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
export async function openTargetSession(options: PostgresTargetOptions): Promise<PostgresSession> {
  const session = new PostgresSession(
    parsePostgresUrl(options.url, options.password, 'target.url', 'dpone-target'),
  );
  try {
    await session.use((client) => ensureTargetTables(client, options.table, options.columns));
    return session;
  } catch (error) {
    await session.close();
    throw fenceUnavailable(undefined, error);
  }
}
