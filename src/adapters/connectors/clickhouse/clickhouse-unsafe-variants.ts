import { DponeError, ERROR_CODES, invalidInput, isDponeError } from '../../../contracts/errors.ts';
import type {
  FenceAnswer,
  FenceCapabilityKind,
  FenceEvidence,
  FenceRef,
  MutationReceipt,
  MutationRequest,
  TargetConnector,
} from '../../../ports/connector.ts';
import { requestedUnsafeVariant, UNSAFE_VARIANT_ENV } from '../../../ports/unsafe-variants.ts';
import { quoteName } from './clickhouse-config.ts';
import { installEpoch, sealOlderEpochs, staleEpoch } from './clickhouse-epoch.ts';
import {
  appendFenceEvent,
  decideFence,
  fenceUnavailable,
  readFenceLog,
  readTaggedRows,
} from './clickhouse-fence.ts';
import { settledAnswer } from './clickhouse-reading.ts';
import { partitionLiteral } from './clickhouse-rows.ts';
import { listStaging } from './clickhouse-staging.ts';
import type { ClickHouseTargetOptions, OpenedTarget } from './clickhouse-target.ts';
import { ClickHouseTarget, openTargetSite, unknownOutcome } from './clickhouse-target.ts';
import { encodeBatch } from './clickhouse-values.ts';
import { writeGeneration } from './clickhouse-write.ts';

/**
 * DELIBERATELY BROKEN ClickHouse targets for the harness's sensitivity check: each leaves out one
 * part of the staging/swap protocol and must make a certification FAIL. Reachable only through
 * `clickhouseTargetForHarness` with DPONE_HARNESS=1 and DPONE_UNSAFE_VARIANT=<name>.
 * - `direct-insert`: no staging table; the rows are INSERTed straight into the target (replace
 *   drops the partition first). Nothing seals a paused writer: it inserts after a newer holder.
 * - `no-seal`: a new holder neither seals nor counts older epochs' staging tables: a paused older
 *   holder attaches its staged generation after the newer one committed.
 * - `log-only-fence`: the fence is answered from the fence log alone (committed only with a
 *   `committed` event), not from the target's tagged rows: a worker killed between the swap and
 *   that event is "not committed", and the retry attaches the batch again.
 * - `untagged-staging`: staged rows carry no operation and epoch, so the target cannot prove which
 *   generation landed: after the same kill the retry attaches again.
 */
export interface ClickHouseFlaws {
  readonly directInsert?: boolean;
  readonly noSeal?: boolean;
  readonly logOnlyFence?: boolean;
  readonly untaggedStaging?: boolean;
}

export const UNSAFE_CLICKHOUSE_VARIANTS: Readonly<Record<string, ClickHouseFlaws>> = {
  'direct-insert': { directInsert: true },
  'no-seal': { noSeal: true },
  'log-only-fence': { logOnlyFence: true },
  'untagged-staging': { untaggedStaging: true },
};

class UnsafeClickHouseTarget implements TargetConnector {
  readonly identity: string;
  readonly capability: FenceCapabilityKind = 'staging-swap-generation';
  readonly #opened: OpenedTarget;
  readonly #flaws: ClickHouseFlaws;

  constructor(opened: OpenedTarget, flaws: ClickHouseFlaws, identity: string) {
    this.#opened = opened;
    this.#flaws = flaws;
    this.identity = identity;
  }

  async prepareFence(fence: FenceRef): Promise<FenceEvidence> {
    try {
      const log = await installEpoch(this.#opened.site, fence);
      if (!this.#flaws.noSeal) await sealOlderEpochs(this.#opened.site, fence, log);
      return { epoch: fence.epoch, status: (await this.#answer(fence.operationId)).status };
    } catch (error) {
      if (isDponeError(error)) throw error;
      throw fenceUnavailable(fence.operationId, error);
    }
  }

  async mutate(request: MutationRequest): Promise<MutationReceipt> {
    const { fence } = request;
    const { sql, site, shape, faults } = this.#opened;
    await faults.hit('target.mutate:begin');
    let answer: FenceAnswer;
    try {
      const log = await readFenceLog(sql, fence.operationId);
      if (log.maxEpoch !== fence.epoch) throw staleEpoch(fence, log.maxEpoch);
      answer = await this.#answer(fence.operationId);
    } catch (error) {
      if (isDponeError(error)) throw error;
      throw unknownOutcome(fence.operationId, error);
    }
    if (answer.status === 'committed') {
      return { rowsWritten: answer.rowsWritten ?? 0, epoch: answer.committedEpoch ?? fence.epoch };
    }
    if (this.#flaws.directInsert) return this.#insertDirectly(request);
    return writeGeneration(sql, {
      database: site.database,
      shape,
      request,
      faults,
      isCurrent: async () => (await readFenceLog(sql, fence.operationId)).maxEpoch === fence.epoch,
      ...(this.#flaws.untaggedStaging ? { rowTags: { operationId: '', epoch: 0 } } : {}),
    });
  }

  async queryFence(operationId: string): Promise<FenceAnswer> {
    try {
      return await this.#answer(operationId);
    } catch (error) {
      if (isDponeError(error)) throw error;
      throw fenceUnavailable(operationId, error);
    }
  }

  async close(): Promise<void> {
    await this.#opened.sql.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  async #answer(operationId: string): Promise<FenceAnswer> {
    const { sql, site } = this.#opened;
    if (this.#flaws.logOnlyFence) {
      const log = await readFenceLog(sql, operationId);
      const [committed] = [...log.committed];
      return committed
        ? {
            status: 'committed',
            epoch: log.maxEpoch,
            committedEpoch: committed[0],
            rowsWritten: committed[1],
          }
        : { status: 'not-committed', epoch: log.maxEpoch, committedEpoch: null, rowsWritten: null };
    }
    if (this.#flaws.noSeal) {
      // Older epochs' staging tables are taken for dead, although nothing stopped them.
      const log = await readFenceLog(sql, operationId);
      const staging = await listStaging(sql, site.database, operationId);
      const taggedRows = await readTaggedRows(sql, site.table, operationId);
      const current = staging.some((t) => !t.sealed && t.epoch >= (log.maxEpoch ?? 0));
      return decideFence(log, { taggedRows, liveStaging: current });
    }
    return settledAnswer(site, operationId);
  }

  async #insertDirectly(request: MutationRequest): Promise<MutationReceipt> {
    const { sql, shape, faults } = this.#opened;
    const { operationId, epoch } = request.fence;
    const rows = request.batch.rows.length;
    const keyed = new Set([...shape.naturalKey, shape.partitionColumn]);
    const encoded = encodeBatch(request.batch, operationId, epoch, keyed);
    try {
      await appendFenceEvent(sql, operationId, epoch, 'staged', rows);
      await faults.hit('target.commit:before');
      if (request.strategy === 'replace-partition') {
        const partition = partitionLiteral(shape, request.partitionValue);
        await sql.command(`ALTER TABLE ${quoteName(shape.table)} DROP PARTITION ${partition}`);
      }
      if (rows > 0) await sql.insertTsv(quoteName(shape.table), encoded.columns.map(quoteName), encoded.body);
      await faults.hit('target.commit:after');
      await appendFenceEvent(sql, operationId, epoch, 'committed', rows);
      await faults.hit('target.marker:after');
      return { rowsWritten: rows, epoch };
    } catch (error) {
      if (isDponeError(error)) throw error;
      throw new DponeError(ERROR_CODES.COMMIT_UNKNOWN, 'unsafe variant: mutation did not return', {
        operationId,
      });
    }
  }
}

/** Opens the named unsafe variant; an unknown name is bad input naming DPONE_UNSAFE_VARIANT. */
export async function openUnsafeClickHouseTarget(
  name: string,
  options: ClickHouseTargetOptions,
): Promise<TargetConnector> {
  const flaws = Object.hasOwn(UNSAFE_CLICKHOUSE_VARIANTS, name)
    ? UNSAFE_CLICKHOUSE_VARIANTS[name]
    : undefined;
  if (!flaws)
    throw invalidInput(`unknown unsafe ClickHouse variant "${name}"`, { field: UNSAFE_VARIANT_ENV });
  return new UnsafeClickHouseTarget(await openTargetSite(options), flaws, `clickhouse:${options.table}`);
}

/**
 * The ClickHouse target for a process the harness started: DPONE_UNSAFE_VARIANT=<name> selects an
 * unsafe variant, honoured only together with DPONE_HARNESS=1; otherwise the certified target.
 */
export async function clickhouseTargetForHarness(
  options: ClickHouseTargetOptions,
  env: NodeJS.ProcessEnv = process.env,
): Promise<TargetConnector> {
  const name = requestedUnsafeVariant(env);
  return name === null ? ClickHouseTarget.open(options) : openUnsafeClickHouseTarget(name, options);
}
