import { DponeError, ERROR_CODES } from '../../../contracts/errors.ts';
import type { FenceAnswer } from '../../../ports/connector.ts';
import { EPOCH_COLUMN, OP_COLUMN, quoteName, quoteString } from './clickhouse-config.ts';
import type { ClickHouseSql } from './clickhouse-session.ts';

/**
 * The ClickHouse fence: an append-only log (ClickHouse has no UPDATE and no multi-statement
 * transaction), one row per event of an operation, read whole and folded in memory:
 *   epoch     a lease holder installed epoch E (prepareFence);
 *   staged    holder E is about to stage `rows` rows in its staging table (written before it);
 *   replacing holder E is about to REPLACE partition `detail.partition`, whose rows carried the
 *             generation tags `detail.replaced` (written before the swap; see clickhouse-replace.ts);
 *   settled   the rows the replace removed are also deleted durably (a restart cannot bring them back);
 *   committed the swap of epoch E's staging returned OK (written after it, through a statement that
 *             reads E's staging table, so it fails once a newer holder sealed that name).
 * The log alone proves nothing about the target: the proof is the target's own rows, each tagged
 * with `_dpone_op` and `_dpone_epoch` (the generation). See clickhouse-target.ts for the windows.
 */
export const FENCE_TABLE = '_dpone_fence';

export const FENCE_TABLE_DDL =
  `CREATE TABLE IF NOT EXISTS ${FENCE_TABLE} (operation_id String, epoch UInt64, kind String, ` +
  'rows UInt64, at_ms UInt64, detail String) ENGINE = MergeTree ORDER BY (operation_id, epoch, kind)';

export type FenceEventKind = 'epoch' | 'staged' | 'replacing' | 'settled' | 'committed';

/** What a replace-partition generation took out of its partition: one `[op, epoch]` per tag seen. */
export interface ReplaceRecord {
  readonly partition: string;
  readonly replaced: readonly (readonly [string, number])[];
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
}

/** What the target itself holds for one operation: tagged rows per epoch, and un-sealed staging. */
export interface TargetEvidence {
  readonly taggedRows: ReadonlyMap<number, number>;
  /** Whether a staging table of this operation still exists un-sealed (it could still be attached). */
  readonly liveStaging: boolean;
}

export async function appendFenceEvent(
  sql: ClickHouseSql,
  operationId: string,
  epoch: number,
  kind: FenceEventKind,
  rows: number,
  detail = '',
): Promise<void> {
  await sql.insert(FENCE_TABLE, [
    { operation_id: operationId, epoch, kind, rows, at_ms: Date.now(), detail },
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
  operationId: string,
  epoch: number,
  rows: number,
): Promise<void> {
  await sql.command(
    `INSERT INTO ${FENCE_TABLE} (operation_id, epoch, kind, rows, at_ms, detail) ` +
      `SELECT ${quoteString(operationId)}, toUInt64(${epoch}), 'committed', toUInt64(${rows}), ` +
      `toUInt64(${Date.now()}), '' FROM (SELECT count() FROM ${staging} WHERE ${EPOCH_COLUMN} = ${epoch})`,
  );
}

export async function readFenceLog(sql: ClickHouseSql, operationId: string): Promise<FenceLog> {
  const events = await sql.rows<{
    kind: string;
    epoch: string | number;
    rows: string | number;
    detail: string;
  }>(`SELECT kind, epoch, rows, detail FROM ${FENCE_TABLE} WHERE operation_id = ${quoteString(operationId)}`);
  return foldFenceLog(
    events.map((e) => ({ kind: e.kind, epoch: Number(e.epoch), rows: Number(e.rows), detail: e.detail })),
  );
}

function replaceRecord(detail: string | undefined): ReplaceRecord | null {
  try {
    const parsed = JSON.parse(detail ?? '') as { partition?: unknown; replaced?: unknown };
    if (typeof parsed.partition !== 'string' || !Array.isArray(parsed.replaced)) return null;
    const replaced = parsed.replaced.filter(
      (t): t is [string, number] =>
        Array.isArray(t) && typeof t[0] === 'string' && Number.isSafeInteger(t[1]),
    );
    return { partition: parsed.partition, replaced };
  } catch {
    return null;
  }
}

export function foldFenceLog(
  events: readonly { kind: string; epoch: number; rows: number; detail?: string }[],
): FenceLog {
  const epochs = new Set<number>();
  const staged = new Map<number, number>();
  const committed = new Map<number, number>();
  const replacing = new Map<number, ReplaceRecord>();
  const settled = new Set<number>();
  for (const event of events) {
    if (event.kind === 'epoch') epochs.add(event.epoch);
    else if (event.kind === 'staged') staged.set(event.epoch, event.rows);
    else if (event.kind === 'committed') committed.set(event.epoch, event.rows);
    else if (event.kind === 'settled') settled.add(event.epoch);
    else if (event.kind === 'replacing') {
      const record = replaceRecord(event.detail);
      // An unreadable record still marks the epoch as a replace (settling it then fails loudly).
      replacing.set(event.epoch, record ?? { partition: '', replaced: [] });
    }
  }
  const all = [...epochs, ...staged.keys(), ...committed.keys()];
  return {
    maxEpoch: all.length === 0 ? null : Math.max(...all),
    epochs: [...epochs].sort((a, b) => a - b),
    staged,
    committed,
    replacing,
    settled,
  };
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

const UNKNOWN = (epoch: number | null): FenceAnswer => ({
  status: 'unknown',
  epoch,
  committedEpoch: null,
  rowsWritten: null,
});

/**
 * The decision, pure so each window can be unit-tested:
 * - committed: exactly one epoch's generation is in the target with exactly the rows it staged
 *   (one staged part attaches all-or-nothing); or no tagged rows at all but a `committed` event
 *   (the server acknowledged the attach; a later replace of the partition removed them) — the
 *   latter only for a single committed epoch.
 * - not-committed: no tagged rows, no committed event, and no un-sealed staging table that could
 *   still be attached.
 * - unknown: anything else (two generations, a row count that differs from what was staged, a
 *   staging table that might still land).
 */
export function decideFence(log: FenceLog, target: TargetEvidence): FenceAnswer {
  const tagged = [...target.taggedRows].filter(([, n]) => n > 0);
  const committedEvents = [...log.committed];
  if (tagged.length > 1 || committedEvents.length > 1) return UNKNOWN(log.maxEpoch);
  if (tagged.length === 1) {
    const [epoch, rows] = tagged[0]!;
    const committedElsewhere = committedEvents.length === 1 && committedEvents[0]![0] !== epoch;
    if (log.staged.get(epoch) !== rows || committedElsewhere) return UNKNOWN(log.maxEpoch);
    return { status: 'committed', epoch: log.maxEpoch, committedEpoch: epoch, rowsWritten: rows };
  }
  if (committedEvents.length === 1) {
    const [epoch, rows] = committedEvents[0]!;
    return { status: 'committed', epoch: log.maxEpoch, committedEpoch: epoch, rowsWritten: rows };
  }
  if (target.liveStaging) return UNKNOWN(log.maxEpoch);
  return { status: 'not-committed', epoch: log.maxEpoch, committedEpoch: null, rowsWritten: null };
}

/** Wraps a driver failure of a fence read or install; the driver's message stays in `cause`. */
export function fenceUnavailable(operationId: string | undefined, error: unknown): DponeError {
  return new DponeError(
    ERROR_CODES.FENCE_UNAVAILABLE,
    'the ClickHouse target fence could not be read or written (unreachable, timed out or refused)',
    operationId !== undefined ? { operationId } : {},
    { cause: error },
  );
}

export function fenced(operationId: string, message: string): DponeError {
  return new DponeError(ERROR_CODES.FENCED, message, { operationId });
}
