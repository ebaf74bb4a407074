import { DponeError, ERROR_CODES } from '../../contracts/errors.ts';
import type { CommitJournalEntry, JournalHistoryRecord } from '../../contracts/journal.ts';
import type { CommitState } from '../../contracts/states.ts';
import { isCommitState } from '../../contracts/states.ts';

/**
 * The flat row shape every SQL journal adapter stores (the journals in the engine folders,
 * connectors/<engine>/journal/, the embedded file journal and the server journals alike).
 * Nested values (metadata, result, evidence, audit) are JSON text of the safe contract types, so
 * the columns never hold SQL, credentials or row data. Numbers may come back from a driver as
 * strings (BIGINT) or bigints; the decoders accept all three.
 */
export interface EntryRow {
  operation_id: string;
  intent_digest: string;
  state: string;
  version: number;
  lease_holder: string | null;
  lease_epoch: number | null;
  lease_expires_at_ms: number | null;
  last_epoch: number;
  metadata: string;
  result: string | null;
  created_at_ms: number;
  updated_at_ms: number;
}

export interface HistoryRow {
  operation_id: string;
  version: number;
  kind: string;
  from_state: string | null;
  to_state: string;
  at_ms: number;
  lease_holder: string | null;
  lease_epoch: number | null;
  evidence: string;
  audit: string | null;
}

/** Column names in insert order; adapters build their statements from these lists. */
export const ENTRY_COLUMNS = [
  'operation_id',
  'intent_digest',
  'state',
  'version',
  'lease_holder',
  'lease_epoch',
  'lease_expires_at_ms',
  'last_epoch',
  'metadata',
  'result',
  'created_at_ms',
  'updated_at_ms',
] as const satisfies readonly (keyof EntryRow)[];

export const HISTORY_COLUMNS = [
  'operation_id',
  'version',
  'kind',
  'from_state',
  'to_state',
  'at_ms',
  'lease_holder',
  'lease_epoch',
  'evidence',
  'audit',
] as const satisfies readonly (keyof HistoryRow)[];

export function entryToRow(entry: CommitJournalEntry): EntryRow {
  return {
    operation_id: entry.operation_id,
    intent_digest: entry.intent_digest,
    state: entry.state,
    version: entry.version,
    lease_holder: entry.lease?.holder ?? null,
    lease_epoch: entry.lease?.epoch ?? null,
    lease_expires_at_ms: entry.lease?.expires_at_ms ?? null,
    last_epoch: entry.last_epoch,
    metadata: JSON.stringify(entry.metadata),
    result: entry.result === null ? null : JSON.stringify(entry.result),
    created_at_ms: entry.created_at_ms,
    updated_at_ms: entry.updated_at_ms,
  };
}

export function historyToRow(record: JournalHistoryRecord): HistoryRow {
  return {
    operation_id: record.operation_id,
    version: record.version,
    kind: record.kind,
    from_state: record.from_state,
    to_state: record.to_state,
    at_ms: record.at_ms,
    lease_holder: record.lease_holder,
    lease_epoch: record.lease_epoch,
    evidence: JSON.stringify(record.evidence),
    audit: record.audit === null ? null : JSON.stringify(record.audit),
  };
}

type Loose<T> = { [K in keyof T]: unknown };

function unreadable(operationId: unknown): DponeError {
  // A row we cannot decode is a journal we cannot trust: callers must not mutate the target.
  return new DponeError(
    ERROR_CODES.JOURNAL_UNAVAILABLE,
    'the commit journal holds a row this version cannot read',
    typeof operationId === 'string' ? { operationId } : {},
  );
}

function num(value: unknown, id: unknown): number {
  const n = typeof value === 'bigint' ? Number(value) : typeof value === 'string' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isSafeInteger(n)) throw unreadable(id);
  return n;
}

function optNum(value: unknown, id: unknown): number | null {
  return value === null || value === undefined ? null : num(value, id);
}

function state(value: unknown, id: unknown): CommitState {
  if (!isCommitState(value)) throw unreadable(id);
  return value;
}

function json<T>(value: unknown, id: unknown): T {
  if (typeof value !== 'string') throw unreadable(id);
  try {
    return JSON.parse(value) as T;
  } catch {
    throw unreadable(id);
  }
}

export function rowToEntry(row: Loose<EntryRow>): CommitJournalEntry {
  const id = row.operation_id;
  if (typeof id !== 'string' || typeof row.intent_digest !== 'string') throw unreadable(id);
  const holder = row.lease_holder;
  const lease =
    typeof holder === 'string'
      ? {
          holder,
          epoch: num(row.lease_epoch, id),
          expires_at_ms: num(row.lease_expires_at_ms, id),
        }
      : null;
  return {
    operation_id: id,
    intent_digest: row.intent_digest,
    state: state(row.state, id),
    version: num(row.version, id),
    lease,
    last_epoch: num(row.last_epoch, id),
    metadata: json(row.metadata, id),
    result: row.result === null || row.result === undefined ? null : json(row.result, id),
    created_at_ms: num(row.created_at_ms, id),
    updated_at_ms: num(row.updated_at_ms, id),
  };
}

const KINDS: ReadonlySet<string> = new Set(['intent', 'transition', 'lease', 'result', 'audit']);

export function rowToHistory(row: Loose<HistoryRow>): JournalHistoryRecord {
  const id = row.operation_id;
  if (typeof id !== 'string' || typeof row.kind !== 'string' || !KINDS.has(row.kind)) {
    throw unreadable(id);
  }
  return {
    operation_id: id,
    version: num(row.version, id),
    kind: row.kind as JournalHistoryRecord['kind'],
    from_state: row.from_state === null || row.from_state === undefined ? null : state(row.from_state, id),
    to_state: state(row.to_state, id),
    at_ms: num(row.at_ms, id),
    lease_holder: typeof row.lease_holder === 'string' ? row.lease_holder : null,
    lease_epoch: optNum(row.lease_epoch, id),
    evidence: json(row.evidence, id),
    audit: row.audit === null || row.audit === undefined ? null : json(row.audit, id),
  };
}
