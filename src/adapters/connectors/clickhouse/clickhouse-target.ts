import { DponeError, ERROR_CODES, isDponeError } from '../../../contracts/errors.ts';
import type {
  FenceAnswer,
  FenceCapabilityKind,
  FenceEvidence,
  FenceRef,
  MutationReceipt,
  MutationRequest,
  PrepareFenceMode,
  TargetConnector,
} from '../../../ports/connector.ts';
import type { FaultPoints } from '../../../ports/fault-points.ts';
import { NO_FAULTS } from '../../../ports/fault-points.ts';
import {
  checkTableName,
  clickHouseFenceLocation,
  parseClickHouseUrl,
  splitTable,
} from './clickhouse-config.ts';
import type { ClickHouseEndpoint } from './clickhouse-config.ts';
import {
  appendFenceEvent,
  decideFence,
  fenced,
  fenceUnavailable,
  readFenceLog,
  readTaggedRows,
  soleHolder,
} from './clickhouse-fence.ts';
import type { FenceLog } from './clickhouse-fence.ts';
import { ensureTargetTables } from './clickhouse-rows.ts';
import type { TargetShape } from './clickhouse-rows.ts';
import type { ClickHouseSql } from './clickhouse-session.ts';
import { openClickHouseSql } from './clickhouse-session.ts';
import { listStaging, sealStaging, dropStaging } from './clickhouse-staging.ts';
import { writeGeneration } from './clickhouse-write.ts';

export interface ClickHouseTargetOptions {
  /** `clickhouse://user@host:8123/database?request_timeout_ms=` (password via `password`). */
  readonly url: string;
  readonly password?: string;
  readonly table: string;
  readonly columns: readonly string[];
  /** The sort key; the table has no unique key (ClickHouse has none), so a replay shows as duplicates. */
  readonly naturalKey: readonly string[];
  /** The table is created PARTITION BY this column: the unit ATTACH/REPLACE PARTITION moves. */
  readonly partitionColumn: string;
  readonly faults?: FaultPoints;
  /** Tests hand in a fake or a pre-opened client; by default `@clickhouse/client` over HTTP. */
  readonly sql?: ClickHouseSql;
}

/**
 * The ClickHouse route's target. Capability: a deterministic staging/swap protocol with a
 * queryable generation. Every row the protocol attaches carries `_dpone_op` and `_dpone_epoch`,
 * so the target itself says which generation of which operation it holds.
 *
 * mutate under epoch E: (1) fence log's newest epoch must be E, else FENCED; (2) a generation
 * already in the target makes it a no-op (idempotent); (3) log `staged(E, n)`; (4) CREATE staging
 * `_dpone_stage_<tag>_<E>` AS the target (fails on a tombstone: FENCED); (5) one INSERT of the
 * tagged rows, OPTIMIZE FINAL, check one part of n rows in partition p; (6) ATTACH PARTITION p
 * FROM staging (append) or REPLACE PARTITION p FROM staging (replace-partition): one part, one
 * atomic step; (7) log `committed(E, n)`; (8) drop staging.
 * prepareFence(E'): never creates the log outside PREPARING (`mode.create`); leaves the log as it
 * is when it belongs to another intent, holds a newer epoch, or holds E' for another holder (two
 * journals issued it: the caller moves above it); otherwise logs `epoch(E')` with its holder and
 * intent, re-reads (a racing newer holder, or a second holder of E', wins: not installed), SEALS
 * every older epoch's staging name (drop + tombstone, see clickhouse-staging.ts) and drops a
 * leftover staging table of E' itself (a dead predecessor with the same holder and epoch).
 * The generation check refuses like the marker's guard: already committed → `applied: false`,
 * another intent → INTENT_CONFLICT, another epoch (or holder) → FENCED, no log → DIVERGED.
 *
 * Windows (what queryFence answers; "tags" = target rows with _dpone_op = op):
 * - killed before (3) or during (3)-(5): no tags, no committed event. Read-only query before a
 *   new holder: `unknown` if a live staging table exists (it could still be attached), else
 *   `not-committed`. After prepareFence(E+1) sealed E: `not-committed`, and the zombie E can no
 *   longer create, fill or attach its staging (tombstone).
 * - killed during (6): the server finishes or aborts the ALTER on its own. If it finished: tags of
 *   E = staged n → `committed(E)`. If not: as above. A new holder's seal DROP waits for an ALTER
 *   holding the staging table's structure lock, so after the seal the answer cannot change.
 * - killed between (6) and (7): tags of E = staged n → `committed(E)` (the rows are the proof).
 * - killed after (7): `committed(E)`; staging left behind is sealed by the next holder.
 * - zombie E paused anywhere before (6) while E+1 prepares: sealed → its step fails, no tags of E;
 *   paused inside (6) → seal waits, its rows land → E+1 reads `committed(E)` and writes nothing.
 * - tags of two epochs, or tags ≠ staged rows: `unknown` (never produced by this protocol; a
 *   human must look). A committed event with no tags (a later REPLACE removed them): `committed`.
 */
export class ClickHouseTarget implements TargetConnector {
  readonly identity: string;
  readonly capability: FenceCapabilityKind = 'staging-swap-generation';
  readonly fenceLocation: string;
  readonly #sql: ClickHouseSql;
  readonly #database: string;
  readonly #shape: TargetShape;
  readonly #faults: FaultPoints;

  private constructor(sql: ClickHouseSql, endpoint: ClickHouseEndpoint, options: ClickHouseTargetOptions) {
    this.#sql = sql;
    this.#database = splitTable(options.table, endpoint.database).database;
    this.#shape = {
      table: options.table.includes('.') ? options.table : `${endpoint.database}.${options.table}`,
      columns: options.columns,
      naturalKey: options.naturalKey,
      partitionColumn: options.partitionColumn,
    };
    this.#faults = options.faults ?? NO_FAULTS;
    this.identity = `clickhouse:${options.table}`;
    this.fenceLocation = clickHouseFenceLocation(options.url, 'target.url');
  }

  /** Connects and creates the fence and target tables when missing; unreachable → FENCE_UNAVAILABLE. */
  static async open(options: ClickHouseTargetOptions): Promise<ClickHouseTarget> {
    checkTableName(options.table, 'target.table');
    const endpoint = parseClickHouseUrl(options.url, options.password, 'target.url');
    const sql = options.sql ?? (await openClickHouseSql(endpoint));
    const target = new ClickHouseTarget(sql, endpoint, options);
    try {
      await ensureTargetTables(sql, target.#shape, endpoint.database);
      return target;
    } catch (error) {
      await sql.close().catch(() => undefined);
      if (isDponeError(error)) throw error;
      throw fenceUnavailable(undefined, error);
    }
  }

  async prepareFence(fence: FenceRef, mode: PrepareFenceMode): Promise<FenceEvidence> {
    const { operationId, epoch } = fence;
    try {
      const before = await readFenceLog(this.#sql, operationId);
      const empty = before.maxEpoch === null;
      if ((empty && !mode.create) || !this.#mayInstall(before, fence)) {
        return { ...(await this.#answer(operationId)), installed: false };
      }
      await appendFenceEvent(this.#sql, fence, 'epoch', 0);
      const log = await readFenceLog(this.#sql, operationId);
      if (!this.#holds(log, fence)) return { ...(await this.#answer(operationId)), installed: false };
      const staging = await listStaging(this.#sql, this.#database, operationId);
      const stale = new Set([...log.epochs, ...staging.map((t) => t.epoch)].filter((e) => e < epoch));
      for (const old of [...stale].sort((a, b) => a - b)) {
        await sealStaging(this.#sql, this.#database, operationId, old);
      }
      if (staging.some((t) => t.epoch === epoch && !t.sealed)) {
        await dropStaging(this.#sql, this.#database, operationId, epoch);
      }
      return { ...(await this.#answer(operationId)), installed: true };
    } catch (error) {
      if (isDponeError(error)) throw error;
      throw fenceUnavailable(operationId, error);
    }
  }

  async mutate(request: MutationRequest): Promise<MutationReceipt> {
    const { fence } = request;
    await this.#faults.hit('target.mutate:begin');
    let answer: FenceAnswer;
    try {
      const log = await readFenceLog(this.#sql, fence.operationId);
      this.#check(log, fence);
      answer = await this.#answer(fence.operationId);
    } catch (error) {
      if (isDponeError(error)) throw error;
      throw unknownOutcome(fence.operationId, error);
    }
    if (answer.status === 'committed') {
      // The generation is already in the target; nothing is written again, and this call claims nothing.
      return { applied: false, rowsWritten: answer.rowsWritten ?? 0, epoch: answer.committedEpoch ?? 0 };
    }
    if (answer.status === 'unknown') {
      throw new DponeError(
        ERROR_CODES.COMMIT_UNKNOWN,
        'the ClickHouse target holds an ambiguous generation for this operation; refusing to write',
        { operationId: fence.operationId },
      );
    }
    return writeGeneration(this.#sql, {
      database: this.#database,
      shape: this.#shape,
      request,
      faults: this.#faults,
      isCurrent: async () => {
        const log = await readFenceLog(this.#sql, fence.operationId);
        return this.#holds(log, fence) && log.committed.size === 0;
      },
    });
  }

  /** Read-only: the fence log, the target's tagged rows and the live staging tables, decided. */
  async queryFence(operationId: string): Promise<FenceAnswer> {
    try {
      return await this.#answer(operationId);
    } catch (error) {
      throw fenceUnavailable(operationId, error);
    }
  }

  async close(): Promise<void> {
    await this.#sql.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  async #answer(operationId: string): Promise<FenceAnswer> {
    // Order matters: staging, then tags, then the log. A `staged` event precedes its staging
    // table, which precedes the attach, so every tag we count has its `staged` event visible.
    const staging = await listStaging(this.#sql, this.#database, operationId);
    const taggedRows = await readTaggedRows(this.#sql, this.#shape.table, operationId);
    const log = await readFenceLog(this.#sql, operationId);
    return decideFence(log, { taggedRows, liveStaging: staging.some((t) => !t.sealed) });
  }

  /** The log belongs to the caller's intent and holds no newer epoch, and no other holder of its own. */
  #mayInstall(log: FenceLog, fence: FenceRef): boolean {
    if (log.intentDigest !== null && log.intentDigest !== fence.intentDigest) return false;
    if (log.maxEpoch === null || log.maxEpoch < fence.epoch) return true;
    return (
      log.maxEpoch === fence.epoch &&
      [...(log.holders.get(fence.epoch) ?? [])].every((h) => h === fence.holder)
    );
  }

  /** The log holds exactly the caller's epoch, installed by the caller alone, for its intent. */
  #holds(log: FenceLog, fence: FenceRef): boolean {
    return (
      log.maxEpoch === fence.epoch &&
      soleHolder(log, fence.epoch) === fence.holder &&
      log.intentDigest === fence.intentDigest
    );
  }

  /** The generation check's refusals before anything is staged (nothing written). */
  #check(log: FenceLog, fence: FenceRef): void {
    const { operationId } = fence;
    if (log.maxEpoch === null) {
      throw new DponeError(
        ERROR_CODES.DIVERGED,
        'the ClickHouse target holds no fence log for this operation where this run looks; nothing was written',
        { operationId },
      );
    }
    if (log.intentDigest !== fence.intentDigest) {
      throw new DponeError(
        ERROR_CODES.INTENT_CONFLICT,
        'the ClickHouse fence log holds another intent digest for this operation id; nothing was written',
        { operationId },
      );
    }
    // Our epoch and holder, already committed: the caller answers applied: false.
    if (!this.#holds(log, fence)) {
      throw fenced(
        operationId,
        `the target fence holds epoch ${log.maxEpoch} (holder ${soleHolder(log, log.maxEpoch) === null ? 'ambiguous' : 'another'}), not ${fence.epoch} of this holder; nothing was written`,
      );
    }
  }
}

export function unknownOutcome(operationId: string, error: unknown): DponeError {
  return new DponeError(
    ERROR_CODES.COMMIT_UNKNOWN,
    'the ClickHouse target mutation did not return; only the fence can tell whether it committed',
    { operationId },
    { cause: error },
  );
}
