import { DponeError, ERROR_CODES, isDponeError } from '../../src/contracts/errors.ts';
import type {
  FenceAnswer,
  FenceCapabilityKind,
  FenceEvidence,
  FenceRef,
  MutationReceipt,
  MutationRequest,
  PrepareFenceMode,
  TargetConnector,
} from '../../src/ports/connector.ts';
import type { FaultPoints } from '../../src/ports/fault-points.ts';
import { StatementPoints } from '../../src/ports/statement-points.ts';
import { NO_FAULTS } from '../../src/ports/fault-points.ts';
import {
  checkTableName,
  clickHouseFenceLocation,
  parseClickHouseUrl,
  splitTable,
} from './clickhouse-config.ts';
import { classifyClickHouseError } from './clickhouse-errors.ts';
import { checkGeneration, holds, installEpoch, sealOlderEpochs } from './clickhouse-epoch.ts';
import { fenceUnavailable, readFenceLog } from './clickhouse-fence.ts';
import type { FenceReading, FenceSite } from './clickhouse-reading.ts';
import { readFence, settledAnswer } from './clickhouse-reading.ts';
import { settlingError } from './clickhouse-replace.ts';
import { ensureTargetTables } from './clickhouse-rows.ts';
import type { TargetShape } from './clickhouse-rows.ts';
import type { ClickHouseSql } from './clickhouse-session.ts';
import { openClickHouseSql } from './clickhouse-session.ts';
import { observedClickHouseSql } from './clickhouse-statements.ts';
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
  /** How long a fence read waits for a replace's delete mutation to finish after a restart (default 10 s). */
  readonly settleWaitMs?: number;
}

const DEFAULT_SETTLE_WAIT_MS = 10_000;

/**
 * The ClickHouse route's target. Capability: a deterministic staging/swap protocol with a
 * queryable generation. Every row the protocol attaches carries `_dpone_op` and `_dpone_epoch`,
 * so the target itself says which generation of which operation it holds.
 *
 * mutate under epoch E: (1) fence log's newest epoch must be E, else FENCED; (2) a generation
 * already in the target makes it a no-op (idempotent); (3) CREATE staging
 * `_dpone_stage_<tag>_<E>` AS the target (fails on a tombstone: FENCED) — also for an empty
 * partition; (4) one streamed INSERT of the tagged rows, chunk by chunk as the source yields
 * them, OPTIMIZE FINAL, check one part of the n rows counted in partition p; (5) log
 * `staged(E, n)` (only now is n known); re-read the log (still E?); (5b) claim partition p, refused
 * while another operation's conflicting swap into p is open (clickhouse-claims.ts: two replaces of
 * one partition); (6) ATTACH PARTITION p FROM staging (append) or REPLACE PARTITION p
 * FROM staging (replace-partition, after logging which tags p held: `replacing`): one part, one
 * atomic step; (6b) replace only: have the server delete the replaced parts' files (checked), or
 * else delete the replaced rows by a durable mutation, log `settled` (see clickhouse-replace.ts:
 * 18.16 brings replaced parts back after a restart); (7) log
 * `committed(E, n)` through a statement that reads the staging table (fails once sealed); (8) drop
 * staging and this operation's tombstones.
 * prepareFence(E'): never creates the log outside PREPARING (`mode.create`); leaves the log as it
 * is when it belongs to another intent, holds a newer epoch, or holds E' for another holder (two
 * journals issued it: the caller moves above it); otherwise logs `epoch(E')` with its holder and
 * intent, re-reads (a racing newer holder, or a second holder of E', wins: not installed), SEALS
 * every older epoch's staging name (drop + tombstone, see clickhouse-staging.ts), drops a
 * leftover staging table of E' itself (a dead predecessor with the same holder and epoch) and
 * settles a landed but unsettled replace (see clickhouse-epoch.ts).
 * The generation check refuses like the marker's guard: already committed → `applied: false`,
 * another intent → INTENT_CONFLICT, another epoch (or holder) → FENCED, no log → DIVERGED.
 *
 * Windows (what queryFence answers; "tags" = target rows with _dpone_op = op):
 * - killed before (3) or during (3)-(5): no tags, no committed event. Read-only query before a
 *   new holder: `unknown` if a live staging table exists (it could still be attached), else
 *   `not-committed`. After prepareFence(E+1) sealed E: `not-committed`, and the zombie E can no
 *   longer create, fill or attach its staging (tombstone), nor record a commit.
 * - killed during (6): the server finishes or aborts the ALTER on its own. If it finished: tags of
 *   E = staged n → `committed(E)`. If not: as above. A new holder's seal DROP waits for an ALTER
 *   holding the staging table's structure lock, so after the seal the answer cannot change.
 * - killed between (6) and (6b) (replace): tags prove the swap, but the replaced rows are not yet
 *   deleted durably: queryFence refuses to answer (FENCE_UNAVAILABLE, retry-safe); the next
 *   holder's prepareFence issues (6b) and then answers `committed(E)`.
 * - killed between (6b) and (7): tags of E = staged n → `committed(E)` (the rows are the proof).
 * - an empty partition has no tags: its proof is the guarded `committed` event of (7) alone.
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
  readonly #site: FenceSite;
  readonly #shape: TargetShape;
  readonly #faults: FaultPoints;
  readonly #statements: StatementPoints;

  private constructor(opened: OpenedTarget, identity: string, fenceLocation: string) {
    this.#sql = opened.sql;
    this.#site = opened.site;
    this.#shape = opened.shape;
    this.#faults = opened.faults;
    this.#statements = opened.statements;
    this.identity = identity;
    this.fenceLocation = fenceLocation;
  }

  /**
   * Connects, creates the target table when missing and checks the target's shape. The fence log
   * is created only by a first preparation (`mode.create`): a retry that opens the target after
   * the log was lost must find it missing, not recreated empty.
   * A refusal the server explains (credentials, privilege, missing database, a table the protocol
   * cannot use) is its non-retry code; unreachable → FENCE_UNAVAILABLE.
   */
  static async open(options: ClickHouseTargetOptions): Promise<ClickHouseTarget> {
    const location = clickHouseFenceLocation(options.url, 'target.url');
    return new ClickHouseTarget(await openTargetSite(options), `clickhouse:${options.table}`, location);
  }

  async prepareFence(fence: FenceRef, mode: PrepareFenceMode): Promise<FenceEvidence> {
    this.#statements.begin('prepare');
    try {
      const installation = await installEpoch(this.#site, fence, mode);
      if (!installation.installed) return installation.evidence;
      await sealOlderEpochs(this.#site, fence, installation.log);
      return { ...(await settledAnswer(this.#site, fence)), installed: true };
    } catch (error) {
      if (isDponeError(error)) throw error;
      throw (
        classifyClickHouseError(error, { operationId: fence.operationId }) ??
        fenceUnavailable(fence.operationId, error)
      );
    }
  }

  async mutate(request: MutationRequest): Promise<MutationReceipt> {
    const { fence } = request;
    await this.#faults.hit('target.mutate:begin');
    this.#statements.begin('mutate');
    let answer: FenceAnswer;
    try {
      checkGeneration(await readFenceLog(this.#sql, fence.operationId), fence);
      answer = await settledAnswer(this.#site, fence);
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
      database: this.#site.database,
      shape: this.#shape,
      request,
      faults: this.#faults,
      isCurrent: async () => {
        const log = await readFenceLog(this.#sql, fence.operationId);
        return holds(log, fence) && log.committed.size === 0;
      },
    });
  }

  /**
   * Read-only: the fence log, the target's tagged rows and the live staging tables, decided. A
   * committed replace whose replaced rows are not yet deleted durably is no answer yet:
   * FENCE_UNAVAILABLE (retry-safe), never `committed`.
   */
  async queryFence(operationId: string): Promise<FenceAnswer> {
    this.#statements.begin('query');
    let reading: FenceReading;
    try {
      reading = await readFence(this.#site, operationId);
    } catch (error) {
      throw fenceUnavailable(operationId, error);
    }
    if (reading.settlement !== 'durable') throw settlingError(operationId, reading.settlement);
    return reading.answer;
  }

  async close(): Promise<void> {
    await this.#sql.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

/** What a ClickHouse target holds once opened: the connection, where its fence lives, its shape. */
export interface OpenedTarget {
  readonly sql: ClickHouseSql;
  readonly site: FenceSite;
  /** The checked shape, with the partition column's type. */
  readonly shape: TargetShape;
  readonly faults: FaultPoints;
  /** The statement points `sql` passes (steps begin them; inactive without a plan observing statements). */
  readonly statements: StatementPoints;
}

/**
 * Connects, creates the target table when missing (never the fence log) and checks its shape (also
 * used by the harness's unsafe variants, so they differ from the real target only in their flaw).
 */
export async function openTargetSite(options: ClickHouseTargetOptions): Promise<OpenedTarget> {
  checkTableName(options.table, 'target.table');
  const endpoint = parseClickHouseUrl(options.url, options.password, 'target.url');
  const sql = options.sql ?? (await openClickHouseSql(endpoint));
  try {
    const shape = await ensureTargetTables(
      sql,
      {
        table: options.table.includes('.') ? options.table : `${endpoint.database}.${options.table}`,
        columns: options.columns,
        naturalKey: options.naturalKey,
        partitionColumn: options.partitionColumn,
      },
      endpoint.database,
    );
    // From here on every statement is observed (the table checks above belong to no step).
    const faults = options.faults ?? NO_FAULTS;
    const statements = new StatementPoints(faults);
    const observed = observedClickHouseSql(sql, statements);
    const site: FenceSite = {
      sql: observed,
      database: splitTable(options.table, endpoint.database).database,
      table: shape.table,
      partitionColumn: shape.partitionColumn,
      partitionType: shape.partitionType,
      settleWaitMs: options.settleWaitMs ?? DEFAULT_SETTLE_WAIT_MS,
    };
    return { sql: observed, site, shape, faults, statements };
  } catch (error) {
    await sql.close().catch(() => undefined);
    if (isDponeError(error)) throw error;
    throw classifyClickHouseError(error, { field: 'target.url' }) ?? fenceUnavailable(undefined, error);
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
