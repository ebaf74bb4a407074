import { DponeError, ERROR_CODES } from '../../../contracts/errors.ts';
import type { FenceAnswer } from '../../../ports/connector.ts';
import { EPOCH_COLUMN, OP_COLUMN, quoteName, quoteString } from './clickhouse-config.ts';
import type { ClickHouseSql } from './clickhouse-session.ts';

/**
 * The ClickHouse fence: an append-only log (ClickHouse has no UPDATE and no multi-statement
 * transaction), one row per event of an operation, read whole and folded in memory:
 *   epoch     a lease holder installed epoch E (prepareFence);
 *   staged    holder E is about to stage `rows` rows in its staging table (written before it);
 *   committed the ATTACH/REPLACE PARTITION of epoch E's staging returned OK (written after it).
 * The log alone proves nothing about the target: the proof is the target's own rows, each tagged
 * with `_dpone_op` and `_dpone_epoch` (the generation). See clickhouse-target.ts for the windows.
 */
export const FENCE_TABLE = '_dpone_fence';

export const FENCE_TABLE_DDL =
  `CREATE TABLE IF NOT EXISTS ${FENCE_TABLE} (operation_id String, epoch UInt64, kind String, ` +
  'rows UInt64, at_ms UInt64) ENGINE = MergeTree ORDER BY (operation_id, epoch, kind)';

export type FenceEventKind = 'epoch' | 'staged' | 'committed';

export interface FenceLog {
  /** Newest epoch any holder installed; null before the first prepareFence. */
  readonly maxEpoch: number | null;
  readonly epochs: readonly number[];
  /** Rows each epoch announced it would stage. */
  readonly staged: ReadonlyMap<number, number>;
  /** Epoch → rows, for every epoch whose ATTACH/REPLACE returned OK. */
  readonly committed: ReadonlyMap<number, number>;
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
): Promise<void> {
  await sql.insert(FENCE_TABLE, [{ operation_id: operationId, epoch, kind, rows, at_ms: Date.now() }]);
}

export async function readFenceLog(sql: ClickHouseSql, operationId: string): Promise<FenceLog> {
  const events = await sql.rows<{ kind: string; epoch: string | number; rows: string | number }>(
    `SELECT kind, epoch, rows FROM ${FENCE_TABLE} WHERE operation_id = ${quoteString(operationId)}`,
  );
  return foldFenceLog(events.map((e) => ({ kind: e.kind, epoch: Number(e.epoch), rows: Number(e.rows) })));
}

export function foldFenceLog(events: readonly { kind: string; epoch: number; rows: number }[]): FenceLog {
  const epochs = new Set<number>();
  const staged = new Map<number, number>();
  const committed = new Map<number, number>();
  for (const event of events) {
    if (event.kind === 'epoch') epochs.add(event.epoch);
    else if (event.kind === 'staged') staged.set(event.epoch, event.rows);
    else if (event.kind === 'committed') committed.set(event.epoch, event.rows);
  }
  const all = [...epochs, ...staged.keys(), ...committed.keys()];
  return {
    maxEpoch: all.length === 0 ? null : Math.max(...all),
    epochs: [...epochs].sort((a, b) => a - b),
    staged,
    committed,
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
