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
import type { TargetFlaws } from '../../../ports/unsafe-variants.ts';
import { UNSAFE_VARIANTS, unsafeVariantFlaws } from '../../../ports/unsafe-variants.ts';
import { NO_FAULTS } from '../../../ports/fault-points.ts';
import { fenceUnavailable, installFence, markCommitted, readFence } from './postgres-fence.ts';
import { deletePartition, insertRows } from './postgres-rows.ts';
import type { PostgresSession } from './postgres-session.ts';
import type { PostgresTargetOptions } from './postgres-target.ts';
import { commitWithPoints, openTargetSession } from './postgres-target.ts';

/**
 * DELIBERATELY BROKEN PostgreSQL targets for the harness's sensitivity check: each must make the
 * certification FAIL. Reachable only through PostgresTarget.open with DPONE_HARNESS=1.
 */
type Flaws = TargetFlaws;

export const UNSAFE_POSTGRES_VARIANTS: readonly string[] = Object.keys(UNSAFE_VARIANTS);

class UnsafePostgresTarget implements TargetConnector {
  readonly identity: string;
  readonly capability: FenceCapabilityKind = 'transactional-commit-marker';
  readonly #session: PostgresSession;
  readonly #options: PostgresTargetOptions;
  readonly #flaws: Flaws;
  readonly #faults: FaultPoints;

  constructor(session: PostgresSession, flaws: Flaws, options: PostgresTargetOptions) {
    this.#session = session;
    this.#options = options;
    this.#flaws = flaws;
    this.#faults = options.faults ?? NO_FAULTS;
    this.identity = `postgres:${options.table}`;
  }

  async prepareFence(fence: FenceRef): Promise<FenceEvidence> {
    if (this.#flaws.noFence) return { epoch: fence.epoch, status: 'not-committed' };
    try {
      return await this.#session.use((c) => installFence(c, fence, Date.now(), !this.#flaws.ignoreEpoch));
    } catch (error) {
      if (isDponeError(error)) throw error;
      throw fenceUnavailable(fence.operationId, error);
    }
  }

  async mutate(request: MutationRequest): Promise<MutationReceipt> {
    const { fence, batch } = request;
    const guarded = !this.#flaws.noFence;
    const checkEpoch = !this.#flaws.ignoreEpoch;
    await this.#faults.hit('target.mutate:begin');
    try {
      return await this.#session.use(async (client) => {
        await client.query('BEGIN');
        if (guarded && !this.#flaws.splitMarker)
          await markCommitted(client, fence, batch.rows.length, Date.now(), checkEpoch);
        if (request.strategy === 'replace-partition') {
          await deletePartition(client, this.#options.table, request.partitionColumn, request.partitionValue);
        }
        const rowsWritten = await insertRows(client, this.#options.table, batch);
        await commitWithPoints(client, this.#faults);
        if (guarded && this.#flaws.splitMarker) {
          await this.#faults.hit('target.marker:before');
          await client.query('BEGIN');
          await markCommitted(client, fence, rowsWritten, Date.now(), checkEpoch);
          await client.query('COMMIT');
        }
        return { rowsWritten, epoch: fence.epoch };
      });
    } catch (error) {
      if (isDponeError(error)) throw error;
      throw new DponeError(ERROR_CODES.COMMIT_UNKNOWN, 'unsafe variant: mutation did not return', {
        operationId: fence.operationId,
      });
    }
  }

  async queryFence(operationId: string): Promise<FenceAnswer> {
    if (this.#flaws.noFence)
      return { status: 'not-committed', epoch: null, committedEpoch: null, rowsWritten: null };
    let answer: FenceAnswer;
    try {
      answer = await this.#session.use((c) => readFence(c, operationId));
    } catch (error) {
      throw fenceUnavailable(operationId, error);
    }
    if (this.#flaws.queryLies && answer.status === 'committed') {
      return { status: 'not-committed', epoch: answer.epoch, committedEpoch: null, rowsWritten: null };
    }
    return answer;
  }

  async close(): Promise<void> {
    await this.#session.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

/** Opens the named unsafe variant; an unknown name is bad input naming DPONE_UNSAFE_VARIANT. */
export async function openUnsafePostgresTarget(
  name: string,
  options: PostgresTargetOptions,
): Promise<TargetConnector> {
  const flaws = unsafeVariantFlaws(name);
  return new UnsafePostgresTarget(await openTargetSession(options), flaws, options);
}
