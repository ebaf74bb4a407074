import type { DponeError } from '../../src/contracts/errors.ts';
import { fenceUnavailable as markerFenceUnavailable } from '../../src/adapters/connectors/marker-fence/marker-fence.ts';
import type { FenceAnswer, FenceRef } from '../../src/ports/connector.ts';
import {
  CH_ERRORS,
  EPOCH_COLUMN,
  OP_COLUMN,
  clickHouseErrorCode,
  quoteName,
  quoteString,
} from './clickhouse-config.ts';
import type { ClickHouseSql } from './clickhouse-session.ts';

/**
 * The ClickHouse fence: an append-only log (ClickHouse has no UPDATE and no multi-statement
 * transaction), one row per event of an operation, read whole and folded in memory. Every event
 * carries the intent digest and the lease holder that wrote it:
 *   epoch     a lease holder installed epoch E (prepareFence);
 *   staged    holder E staged `rows` rows in its staging table (written after the rows streamed
 *             in, before the swap: every tag in the target has its `staged` event);
 *   claim     holder E is about to swap into partition `detail.partition` of `detail.table`
 *             (mode replace or append; see clickhouse-claims.ts: one swap at a time with a replace);
 *   replacing holder E is about to REPLACE partition `detail.partition`, whose rows carried the
 *             generation tags `detail.replaced` (written before the swap; see clickhouse-replace.ts);
 *   settled   the rows the replace removed are also deleted durably (a restart cannot bring them back);
 *   cleanup   an operator removed what this operation left (detail: actor, reason, names removed);
 *   committed the swap of epoch E's staging returned OK (written after it, through a statement that
 *             reads E's staging table, so it fails once a newer holder sealed that name).
 * The log alone proves nothing about the target: the proof is the target's own rows, each tagged
 * with `_dpone_op` and `_dpone_epoch` (the generation). See clickhouse-target.ts for the windows.
 */
export const FENCE_TABLE = '_dpone_fence';

export const FENCE_TABLE_DDL =
  `CREATE TABLE IF NOT EXISTS ${FENCE_TABLE} (operation_id String, epoch UInt64, kind String, ` +
  "rows UInt64, at_ms UInt64, intent_digest String DEFAULT '', holder String DEFAULT '', " +
  "detail String DEFAULT '') ENGINE = MergeTree ORDER BY (operation_id, epoch, kind)";

/** Columns a fence log from an older version lacks (18.16 has no ADD COLUMN IF NOT EXISTS). */
export const ADDED_FENCE_LOG_COLUMNS = ['intent_digest', 'holder', 'detail'] as const;

export type FenceEventKind = 'epoch' | 'staged' | 'claim' | 'replacing' | 'settled' | 'committed' | 'cleanup';

/** What a replace-partition generation took out of its partition: one `[op, epoch]` per tag seen. */
export interface ReplaceRecord {
  readonly partition: string;
  readonly replaced: readonly (readonly [string, number])[];
  /**
   * The server's id of the partition (`_partition_id` of the rows read before the swap), which
   * system.parts names its parts by; absent in records of older versions (their settle deletes by
   * mutation: clickhouse-replace.ts).
   */
  readonly partition_id?: string;
}

export interface FenceLog {
  /** Newest epoch any holder installed; null before the first prepareFence. */
  readonly maxEpoch: number | null;
  readonly epochs: readonly number[];
  /** Rows each epoch announced it would stage. */
  readonly staged: ReadonlyMap<number, number>;
  /** Epoch → rows, for every epoch whose swap returned OK. */
  readonly committed: ReadonlyMap<number, number>;
  /** Epoch → what its REPLACE PARTITION removes, for replace-partition generations. */
  readonly replacing: ReadonlyMap<number, ReplaceRecord>;
  /** Epochs whose replaced rows were deleted durably. */
  readonly settled: ReadonlySet<number>;
  /** Epoch → the holders that installed it (two means two journals issued it: neither owns it). */
  readonly holders: ReadonlyMap<number, ReadonlySet<string>>;
  /** The intent the log belongs to: that of its first event (lowest epoch); null for an empty log. */
  readonly intentDigest: string | null;
}

export interface FenceEvent {
  readonly kind: string;
  readonly epoch: number;
  readonly rows: number;
  readonly intent_digest?: string;
  readonly holder?: string;
  readonly at_ms?: number;
  readonly detail?: string;
}

/** What the target itself holds for one operation: tagged rows per epoch, and un-sealed staging. */
export interface TargetEvidence {
  readonly taggedRows: ReadonlyMap<number, number>;
  /** Whether a staging table of this operation still exists un-sealed (it could still be attached). */
  readonly liveStaging: boolean;
  /**
   * Epochs of this operation whose rows another operation's replace found in the partition and
   * removed (its `replacing` record names them): proof that they landed, once their tags are gone.
   */
  readonly replacedEpochs?: ReadonlySet<number>;
}

export async function appendFenceEvent(
  sql: ClickHouseSql,
  fence: FenceRef,
  kind: FenceEventKind,
  rows: number,
  detail = '',
): Promise<void> {
  await sql.insert(FENCE_TABLE, [
    {
      operation_id: fence.operationId,
      epoch: fence.epoch,
      kind,
      rows,
      at_ms: Date.now(),
      intent_digest: fence.intentDigest,
      holder: fence.holder,
      detail,
    },
  ]);
}

/**
 * Records `committed(E, rows)` with one INSERT … SELECT that reads epoch E's staging table: once a
 * newer holder sealed that name (a tombstone has no `_dpone_epoch` column) or while it drops it
 * (DROP waits for the statement), the insert fails, so a zombie can never add a stale event.
 */
export async function appendGuardedCommit(
  sql: ClickHouseSql,
  staging: string,
  fence: FenceRef,
  rows: number,
): Promise<void> {
  await sql.command(
    `INSERT INTO ${FENCE_TABLE} (operation_id, epoch, kind, rows, at_ms, intent_digest, holder, detail) ` +
      `SELECT ${quoteString(fence.operationId)}, toUInt64(${fence.epoch}), 'committed', toUInt64(${rows}), ` +
      `toUInt64(${Date.now()}), ${quoteString(fence.intentDigest)}, ${quoteString(fence.holder)}, '' ` +
      `FROM (SELECT count() FROM ${staging} WHERE ${EPOCH_COLUMN} = ${fence.epoch})`,
  );
}

/**
 * The operation's events. No fence log table at all reads as an empty log: the fence was never
 * created here, or was lost (dropped, renamed); opening the target never creates it (only the
 * first preparation does, createFenceLog), so a lost fence stays lost and is reported.
 */
export async function readFenceLog(sql: ClickHouseSql, operationId: string): Promise<FenceLog> {
  const events = await sql
    .rows<{
      kind: string;
      epoch: string | number;
      rows: string | number;
      intent_digest: string;
      holder: string;
      at_ms: string | number;
      detail: string;
    }>(
      `SELECT kind, epoch, rows, intent_digest, holder, at_ms, detail FROM ${FENCE_TABLE} ` +
        `WHERE operation_id = ${quoteString(operationId)}`,
    )
    .catch((error: unknown) => {
      if (clickHouseErrorCode(error) === CH_ERRORS.UNKNOWN_TABLE) return [];
      throw error;
    });
  return foldFenceLog(
    events.map((e) => ({
      kind: e.kind,
      epoch: Number(e.epoch),
      rows: Number(e.rows),
      intent_digest: e.intent_digest,
      holder: e.holder,
      at_ms: Number(e.at_ms),
      detail: e.detail,
    })),
  );
}

/** What a server's partition id looks like (digits, `-`, a hex hash, `all`): it is quoted into SQL. */
const PARTITION_ID = /^[0-9A-Za-z-]{1,128}$/;

/** A `replacing` event's detail, or null when unreadable. */
export function replaceRecordOf(detail: string | undefined): ReplaceRecord | null {
  try {
    const parsed = JSON.parse(detail ?? '') as {
      partition?: unknown;
      replaced?: unknown;
      partition_id?: unknown;
    };
    if (typeof parsed.partition !== 'string' || !Array.isArray(parsed.replaced)) return null;
    const replaced = parsed.replaced.filter(
      (t): t is [string, number] =>
        Array.isArray(t) && typeof t[0] === 'string' && Number.isSafeInteger(t[1]),
    );
    const id = parsed.partition_id;
    return {
      partition: parsed.partition,
      replaced,
      ...(typeof id === 'string' && PARTITION_ID.test(id) ? { partition_id: id } : {}),
    };
  } catch {
    return null;
  }
}

export function foldFenceLog(events: readonly FenceEvent[]): FenceLog {
  const epochs = new Set<number>();
  const staged = new Map<number, number>();
  const committed = new Map<number, number>();
  const replacing = new Map<number, ReplaceRecord>();
  const settled = new Set<number>();
  const holders = new Map<number, Set<string>>();
  for (const event of events) {
    if (event.kind === 'epoch') {
      epochs.add(event.epoch);
      if (event.holder) holders.set(event.epoch, (holders.get(event.epoch) ?? new Set()).add(event.holder));
    } else if (event.kind === 'staged') staged.set(event.epoch, event.rows);
    else if (event.kind === 'committed') committed.set(event.epoch, event.rows);
    else if (event.kind === 'settled') settled.add(event.epoch);
    else if (event.kind === 'replacing') {
      const record = replaceRecordOf(event.detail);
      // An unreadable record still marks the epoch as a replace (settling it then fails loudly).
      replacing.set(event.epoch, record ?? { partition: '', replaced: [] });
    }
  }
  const all = [...epochs, ...staged.keys(), ...committed.keys()];
  const first = events
    .filter((e) => e.intent_digest)
    .sort((a, b) => a.epoch - b.epoch || (a.at_ms ?? 0) - (b.at_ms ?? 0))[0];
  return {
    maxEpoch: all.length === 0 ? null : Math.max(...all),
    epochs: [...epochs].sort((a, b) => a - b),
    staged,
    committed,
    replacing,
    settled,
    holders,
    intentDigest: first?.intent_digest ?? null,
  };
}

/** The single holder of `epoch`, or null when none or several installed it. */
export function soleHolder(log: FenceLog, epoch: number | null): string | null {
  const holders = epoch === null ? undefined : log.holders.get(epoch);
  return holders?.size === 1 ? [...holders][0]! : null;
}

/** Counts the target's rows of one operation per epoch (the generation tag). */
export async function readTaggedRows(
  sql: ClickHouseSql,
  table: string,
  operationId: string,
): Promise<Map<number, number>> {
  const rows = await sql.rows<{ e: string | number; n: string | number }>(
    `SELECT ${EPOCH_COLUMN} AS e, count() AS n FROM ${quoteName(table)} ` +
      `WHERE ${OP_COLUMN} = ${quoteString(operationId)} GROUP BY e`,
  );
  return new Map(rows.map((r) => [Number(r.e), Number(r.n)]));
}

const UNKNOWN = (log: FenceLog): FenceAnswer => ({
  status: 'unknown',
  epoch: log.maxEpoch,
  committedEpoch: null,
  rowsWritten: null,
  intentDigest: log.intentDigest,
  holder: soleHolder(log, log.maxEpoch),
});

/**
 * The decision, pure so each window can be unit-tested:
 * - committed: exactly one epoch's generation is in the target with exactly the rows it staged
 *   (one staged part attaches all-or-nothing); or no tagged rows at all but a `committed` event
 *   (the server acknowledged the attach; a later replace of the partition removed them) — the
 *   latter only for a single committed epoch; or no tagged rows and no `committed` event, but
 *   another operation's replace recorded this epoch's rows as what it removed (killed after its
 *   swap, before its commit record, then replaced: without this its retry wrote a second time).
 * - not-committed: a fence log, no tagged rows, no committed event, and no un-sealed staging
 *   table that could still be attached.
 * - unknown: anything else (two generations, a row count that differs from what was staged, a
 *   staging table that might still land, no fence log at all).
 */
export function decideFence(log: FenceLog, target: TargetEvidence): FenceAnswer {
  const tagged = [...target.taggedRows].filter(([, n]) => n > 0);
  const committedEvents = [...log.committed];
  const held = { epoch: log.maxEpoch, intentDigest: log.intentDigest, holder: soleHolder(log, log.maxEpoch) };
  if (tagged.length > 1 || committedEvents.length > 1) return UNKNOWN(log);
  if (tagged.length === 1) {
    const [epoch, rows] = tagged[0]!;
    const committedElsewhere =
      (committedEvents.length === 1 && committedEvents[0]![0] !== epoch) ||
      [...(target.replacedEpochs ?? [])].some((e) => e !== epoch);
    if (log.staged.get(epoch) !== rows || committedElsewhere) return UNKNOWN(log);
    return { status: 'committed', ...held, committedEpoch: epoch, rowsWritten: rows };
  }
  if (committedEvents.length === 1) {
    const [epoch, rows] = committedEvents[0]!;
    return { status: 'committed', ...held, committedEpoch: epoch, rowsWritten: rows };
  }
  // Landed, then replaced by another operation before this one recorded its commit.
  const replaced = [...(target.replacedEpochs ?? [])];
  if (replaced.length > 1) return UNKNOWN(log);
  if (replaced.length === 1) {
    const epoch = replaced[0]!;
    const rows = log.staged.get(epoch);
    if (rows === undefined) return UNKNOWN(log);
    return { status: 'committed', ...held, committedEpoch: epoch, rowsWritten: rows };
  }
  // No log at all where the fence must live: nothing proves anything (it may have been lost).
  if (target.liveStaging || log.maxEpoch === null) return UNKNOWN(log);
  return { status: 'not-committed', ...held, committedEpoch: null, rowsWritten: null };
}

/**
 * Wraps a driver failure of a fence read or install, in the marker fence's words for "the
 * ClickHouse target fence"; the driver's message stays in `cause`.
 */
export function fenceUnavailable(operationId: string | undefined, error: unknown): DponeError {
  return markerFenceUnavailable('ClickHouse', operationId, error);
}

export { fenced } from '../../src/adapters/connectors/marker-fence/marker-fence.ts';
