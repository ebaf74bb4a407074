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
import type { FaultPoints } from '../../../ports/fault-points.ts';
import type { TargetFlaws } from '../../../ports/unsafe-variants.ts';
import { UNSAFE_VARIANTS, unsafeVariantFlaws } from '../../../ports/unsafe-variants.ts';
import { NO_FAULTS } from '../../../ports/fault-points.ts';
import { fenceUnavailable, installFence, markCommitted, readFence } from './mssql-fence.ts';
import { deletePartition, insertRows } from './mssql-rows.ts';
import type { MssqlSession } from './mssql-session.ts';
import type { MssqlTargetOptions } from './mssql-target.ts';
import { commitUnknown, commitWithPoints, openTargetSession } from './mssql-target.ts';

/**
 * DELIBERATELY BROKEN MSSQL targets for the harness's sensitivity check: each must make the
 * certification FAIL. Reachable only through MssqlTarget.open with DPONE_HARNESS=1.
 */
type Flaws = TargetFlaws;

export const UNSAFE_MSSQL_VARIANTS: readonly string[] = Object.keys(UNSAFE_VARIANTS);

class UnsafeMssqlTarget implements TargetConnector {
  readonly identity: string;
  readonly capability: FenceCapabilityKind = 'transactional-commit-marker';
  readonly #session: MssqlSession;
  readonly #options: MssqlTargetOptions;
  readonly #flaws: Flaws;
  readonly #faults: FaultPoints;

  constructor(session: MssqlSession, flaws: Flaws, options: MssqlTargetOptions) {
    this.#session = session;
    this.#options = options;
    this.#flaws = flaws;
    this.#faults = options.faults ?? NO_FAULTS;
    this.identity = `mssql:${options.table}`;
  }

  async prepareFence(fence: FenceRef): Promise<FenceEvidence> {
    if (this.#flaws.noFence) return { epoch: fence.epoch, status: 'not-committed' };
    try {
      return await this.#session.use((pool, driver) =>
        installFence(pool, driver, fence, Date.now(), !this.#flaws.ignoreEpoch),
      );
    } catch (error) {
      if (isDponeError(error)) throw error;
      throw fenceUnavailable(fence.operationId, error);
    }
  }

  async mutate(request: MutationRequest): Promise<MutationReceipt> {
    const { fence, batch } = request;
    const table = this.#options.table;
    const guarded = !this.#flaws.noFence;
    const checkEpoch = !this.#flaws.ignoreEpoch;
    await this.#faults.hit('target.mutate:begin');
    try {
      return await this.#session.use(async (pool, driver) => {
        const tx = pool.transaction();
        await tx.begin(driver.ISOLATION_LEVEL.READ_COMMITTED);
        let committing = false;
        try {
          if (guarded && !this.#flaws.splitMarker)
            await markCommitted(tx.request(), fence, batch.rows.length, Date.now(), checkEpoch);
          if (request.strategy === 'replace-partition')
            await deletePartition(tx.request(), table, request.partitionColumn, request.partitionValue);
          const rowsWritten = await insertRows(() => tx.request(), table, batch);
          committing = true;
          await commitWithPoints(tx, this.#faults);
          if (guarded && this.#flaws.splitMarker) {
            await this.#faults.hit('target.marker:before');
            const marker = pool.transaction();
            await marker.begin(driver.ISOLATION_LEVEL.READ_COMMITTED);
            await markCommitted(marker.request(), fence, rowsWritten, Date.now(), checkEpoch);
            await marker.commit();
          }
          return { rowsWritten, epoch: fence.epoch };
        } catch (error) {
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
    if (this.#flaws.noFence)
      return { status: 'not-committed', epoch: null, committedEpoch: null, rowsWritten: null };
    let answer: FenceAnswer;
    try {
      answer = await this.#session.use((pool) => readFence(pool.request(), operationId));
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
export async function openUnsafeMssqlTarget(
  name: string,
  options: MssqlTargetOptions,
): Promise<TargetConnector> {
  const flaws = unsafeVariantFlaws(name);
  return new UnsafeMssqlTarget(await openTargetSession(options), flaws, options);
}
