import { DatabaseSync } from 'node:sqlite';
import type { StatementSync } from 'node:sqlite';
import { createJournalFile, hasJournalSchema, openJournalReadOnly } from './sqlite-journal-file.ts';
import { DponeError, ERROR_CODES, isDponeError } from '../../../src/contracts/errors.ts';
import type { CommitJournalEntry, JournalHistoryRecord } from '../../../src/contracts/journal.ts';
import type { PlannedChange } from '../../../src/contracts/journal-rules.ts';
import {
  newIntent,
  planLease,
  planLeaseExpiry,
  planTransition,
  planTransitions,
} from '../../../src/contracts/journal-rules.ts';
import type { LeaseClock } from '../../../src/contracts/lease-clock.ts';
import { CLOCK_FAULT_TAKEOVER } from '../../../src/contracts/lease-clock.ts';
import type {
  CompareAndSetChainRequest,
  CompareAndSetRequest,
  CreateIntentRequest,
  CreateIntentResult,
  ExpireLeaseRequest,
  JournalWarn,
  LeaseRequest,
  TargetCommitJournalPort,
} from '../../../src/ports/journal.ts';
import { warnClockFault } from '../../../src/adapters/journal/lease-warning.ts';
import {
  ENTRY_COLUMNS,
  HISTORY_COLUMNS,
  entryToRow,
  historyToRow,
  rowToEntry,
  rowToHistory,
} from '../../../src/adapters/journal/journal-row.ts';
import type { EntryRow, HistoryRow } from '../../../src/adapters/journal/journal-row.ts';
import { SQLITE_JOURNAL_SCHEMA } from './sqlite-schema.ts';
import { journalCorrupt, journalStorageError } from './sqlite-storage-error.ts';
import { sqliteCodeName } from '../sqlite-storage.ts';
import type { JournalTable } from './sqlite-row-checksum.ts';
import {
  CHECKSUM_COLUMN,
  addChecksums,
  hasChecksums,
  rowChecksum,
  rowIntact,
} from './sqlite-row-checksum.ts';

export interface SqliteJournalOptions {
  /** How long a write waits for another process's lock before the journal is "unavailable". */
  readonly busyTimeoutMs?: number;
  /**
   * Open for reading only (recovery inspect and plan): nothing is created and not a byte of the
   * file changes; a journal on read-only media opens too. Every write is refused.
   */
  readonly readOnly?: boolean;
  /** Hears a takeover of a clock-faulted lease (which holder, which expiry): see lease-clock.ts. */
  readonly warn?: JournalWarn;
  /** UNSAFE, the harness's `trust-holder-clock` variant only: no clock-fault bound on stored expiries. */
  readonly trustStoredExpiry?: boolean;
  /**
   * UNSAFE, the harness's `journal-sync-off`/`-normal` variants only: synchronous OFF or NORMAL
   * instead of FULL, so a committed transition stays in the operating system's cache (NORMAL: until
   * the next checkpoint) and a power cut takes it back.
   */
  readonly unsafeSynchronous?: 'OFF' | 'NORMAL';
  /** Which flag, workload key or default named this file: said when it is damaged or refused. */
  readonly chosenBy?: string;
}

const ENTRY = 'dpone_commit_journal';
/** SQLite `user_version` of a journal file this version creates or migrates: 2 has row checksums. */
const JOURNAL_FORMAT = 2;
const HISTORY = 'dpone_commit_journal_history';
const ENTRY_WRITTEN = [...ENTRY_COLUMNS, CHECKSUM_COLUMN];
const HISTORY_WRITTEN = [...HISTORY_COLUMNS, CHECKSUM_COLUMN];
const UPDATED = ENTRY_WRITTEN.filter((c) => c !== 'operation_id' && c !== 'created_at_ms');

/** A row as written: its fields and their checksum (sqlite-row-checksum.ts). */
function sealed<T extends object>(table: JournalTable, row: T): T & { row_checksum: string } {
  return { ...row, [CHECKSUM_COLUMN]: rowChecksum(table, row as Record<string, unknown>) } as T & {
    row_checksum: string;
  };
}

/**
 * `PRAGMA quick_check` where a run opens the journal anyway: a page that cannot be read, a b-tree
 * that does not hold together or a file shorter than its header says is damage, found before any
 * state is read from it. It stops at the first problem.
 */
function quickCheck(db: DatabaseSync): string | null {
  const rows = db.prepare('PRAGMA quick_check(1)').all();
  const first = rows[0] === undefined ? undefined : Object.values(rows[0])[0];
  return rows.length === 1 && first === 'ok' ? null : 'quick_check';
}

interface Statements {
  readonly select: StatementSync;
  readonly insertEntry: StatementSync;
  readonly casUpdate: StatementSync;
  readonly insertHistory: StatementSync;
  readonly history: StatementSync;
  readonly hasHistory: StatementSync;
  readonly list: StatementSync;
}

/** The file exists but is not a journal: never silently made into a new one. */
function notAJournal(): DponeError {
  return new DponeError(
    ERROR_CODES.JOURNAL_UNAVAILABLE,
    'the SQLite journal file exists but holds no journal (empty, truncated or another database); a ' +
      'journal that was lost is never re-created silently: restore it, or move the file aside to start a new one',
  );
}

function unavailable(cause: unknown, operationId?: string, path?: string, chosenBy?: string): DponeError {
  // A full, read-only or damaged file says so (sqlite-storage-error.ts).
  const storage = path === undefined ? null : journalStorageError(cause, path, operationId, chosenBy);
  if (storage) return storage;
  // The driver's message may name the file or the statement: it stays in `cause` only; its result
  // code's fixed name (SQLITE_BUSY, SQLITE_PROTOCOL, …) says which of those it was.
  const named = sqliteCodeName(cause);
  return new DponeError(
    ERROR_CODES.JOURNAL_UNAVAILABLE,
    `the SQLite commit journal could not be read or written (locked, unreadable or closed${named ? `: ${named}` : ''})`,
    operationId !== undefined ? { operationId } : {},
    { cause },
  );
}

function prepare(db: DatabaseSync): Statements {
  const cols = (list: readonly string[]) => list.join(', ');
  const params = (list: readonly string[]) => list.map((c) => `$${c}`).join(', ');
  return {
    select: db.prepare(`SELECT * FROM ${ENTRY} WHERE operation_id = $operation_id`),
    insertEntry: db.prepare(
      `INSERT INTO ${ENTRY} (${cols(ENTRY_WRITTEN)}) VALUES (${params(ENTRY_WRITTEN)}) ` +
        'ON CONFLICT (operation_id) DO NOTHING',
    ),
    casUpdate: db.prepare(
      `UPDATE ${ENTRY} SET ${UPDATED.map((c) => `${c} = $${c}`).join(', ')} ` +
        'WHERE operation_id = $operation_id AND version = $expected_version',
    ),
    insertHistory: db.prepare(
      `INSERT INTO ${HISTORY} (${cols(HISTORY_WRITTEN)}) VALUES (${params(HISTORY_WRITTEN)})`,
    ),
    history: db.prepare(`SELECT * FROM ${HISTORY} WHERE operation_id = $operation_id ORDER BY version`),
    hasHistory: db.prepare(`SELECT 1 FROM ${HISTORY} WHERE operation_id = $operation_id LIMIT 1`),
    list: db.prepare(`SELECT operation_id FROM ${ENTRY} ORDER BY operation_id`),
  };
}

/**
 * Durable journal in one SQLite file (WAL, synchronous=FULL). Every write runs in one IMMEDIATE
 * transaction: read the entry, plan the change with the shared rules, apply it with ONE conditional
 * `UPDATE … WHERE operation_id = ? AND version = ?`, and append its history row. Several processes
 * may share the file; SQLite's write lock serialises them and the version guard decides the winner.
 * There is no server clock: leases are decided by the callers' clocks, and an expiry further
 * ahead than the largest TTL is a clock fault, read as expired (lease-clock.ts).
 */
export class SqliteJournal implements TargetCommitJournalPort {
  readonly leaseClock: LeaseClock = 'caller';
  readonly #db: DatabaseSync;
  readonly #sql: Statements;
  readonly #readOnly: boolean;
  readonly #warn: JournalWarn | undefined;
  readonly #trustStoredExpiry: boolean;
  readonly #path: string;
  readonly #chosenBy: string | undefined;
  /** Whether rows carry checksums to verify (false only for a pre-checksum journal opened read-only). */
  readonly #checksums: boolean;
  #closed = false;

  private constructor(
    db: DatabaseSync,
    sql: Statements,
    options: SqliteJournalOptions,
    path: string,
    checksums: boolean,
  ) {
    this.#path = path;
    this.#chosenBy = options.chosenBy;
    this.#checksums = checksums;
    this.#db = db;
    this.#sql = sql;
    this.#readOnly = options.readOnly === true;
    this.#warn = options.warn;
    this.#trustStoredExpiry = options.trustStoredExpiry === true;
  }

  /**
   * Opens the journal file. A missing file is created whole (schema included) under a temporary
   * name and linked into place, so a journal file is either absent or complete; an existing file
   * that holds no journal (emptied, truncated, another database) is JOURNAL_UNAVAILABLE, never
   * re-created: a lost journal must not silently become a new, empty one.
   */
  static async open(path: string, options: SqliteJournalOptions = {}): Promise<SqliteJournal> {
    let db: DatabaseSync | undefined;
    try {
      let created = false;
      if (options.readOnly) {
        db = openJournalReadOnly(path);
      } else {
        created = createJournalFile(path);
        db = new DatabaseSync(path);
        db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.trunc(options.busyTimeoutMs ?? 5000))}`);
      }
      if (!hasJournalSchema(db)) throw notAJournal();
      const damage = quickCheck(db);
      if (damage !== null) throw journalCorrupt(path, damage, undefined, options.chosenBy);
      if (!options.readOnly) {
        db.exec('PRAGMA journal_mode = WAL');
        db.exec(`PRAGMA synchronous = ${options.unsafeSynchronous ?? 'FULL'}`);
        // Idempotent: an existing journal gains whatever a newer schema adds (e.g. a trigger).
        db.exec('BEGIN IMMEDIATE');
        try {
          // A journal from before row checksums gains them (and its append-only trigger back, below).
          const migrated = addChecksums(db);
          db.exec(SQLITE_JOURNAL_SCHEMA);
          // A journal this call created or migrated records its format; the write also sets up its
          // WAL here, not on the protocol's first transition.
          if (created || migrated) db.exec(`PRAGMA user_version = ${JOURNAL_FORMAT}`);
          db.exec('COMMIT');
        } catch (error) {
          if (db.isTransaction) db.exec('ROLLBACK');
          throw error;
        }
      }
      return new SqliteJournal(db, prepare(db), options, path, hasChecksums(db));
    } catch (error) {
      try {
        if (db?.isOpen) db.close();
      } catch {
        // the open already failed; closing is best effort
      }
      if (isDponeError(error)) throw error;
      throw unavailable(error, undefined, path, options.chosenBy);
    }
  }

  async createIntent(request: CreateIntentRequest): Promise<CreateIntentResult> {
    const id = request.operationId;
    return this.#transaction(id, () => {
      const changes = newIntent(id, request.intentDigest, request.metadata, request.nowMs, request.lease);
      const entry = changes[changes.length - 1]!.entry;
      // Read first: an entry whose key was damaged (history, no entry) is damage, not a new intent.
      // The transaction is IMMEDIATE, so no other writer can insert between this read and ours.
      const existing = this.#read(id);
      if (existing !== null) return { entry: existing, created: false };
      this.#sql.insertEntry.run({ ...sealed('entry', entryToRow(entry)) });
      for (const change of changes)
        this.#sql.insertHistory.run({ ...sealed('history', historyToRow(change.record)) });
      return { entry, created: true };
    });
  }

  async compareAndSet(request: CompareAndSetRequest): Promise<CommitJournalEntry> {
    return this.#transaction(request.operationId, () => {
      const planned = planTransition(this.#mustRead(request.operationId), request);
      return this.#apply(planned, request.expectedVersion);
    });
  }

  /** Every transition's UPDATE and history row in the one IMMEDIATE transaction: one fsync. */
  async compareAndSetChain(request: CompareAndSetChainRequest): Promise<CommitJournalEntry> {
    return this.#transaction(request.operationId, () => {
      const planned = planTransitions(this.#mustRead(request.operationId), request);
      let entry: CommitJournalEntry | undefined;
      for (const [index, change] of planned.entries())
        entry = this.#apply(change, request.expectedVersion + index);
      return entry!;
    });
  }

  async acquireLease(request: LeaseRequest): Promise<CommitJournalEntry> {
    let ended: CommitJournalEntry['lease'] = null;
    const entry = await this.#transaction(request.operationId, () => {
      const current = this.#mustRead(request.operationId);
      const planned = planLease(current, { ...request, trustStoredExpiry: this.#trustStoredExpiry });
      if (planned.record.evidence.reason === CLOCK_FAULT_TAKEOVER) ended = current.lease;
      return this.#apply(planned, request.expectedVersion);
    });
    // Told only once the takeover is durable.
    if (ended !== null && this.#warn)
      warnClockFault(this.#warn, ended, request.nowMs, entry.lease?.epoch ?? 0);
    return entry;
  }

  async expireLease(request: ExpireLeaseRequest): Promise<CommitJournalEntry> {
    return this.#transaction(request.operationId, () => {
      const planned = planLeaseExpiry(this.#mustRead(request.operationId), request);
      return this.#apply(planned, request.expectedVersion);
    });
  }

  async get(operationId: string): Promise<CommitJournalEntry | null> {
    return this.#guard(operationId, () => this.#read(operationId));
  }

  async history(operationId: string): Promise<readonly JournalHistoryRecord[]> {
    return this.#guard(operationId, () =>
      this.#sql.history
        .all({ operation_id: operationId })
        .map((row) => rowToHistory(this.#verified('history', row, operationId) as unknown as HistoryRow)),
    );
  }

  async list(): Promise<readonly string[]> {
    return this.#guard(undefined, () =>
      this.#sql.list.all().map((row) => String((row as { operation_id: unknown }).operation_id)),
    );
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.#db.close();
    } catch (error) {
      throw unavailable(error, undefined, this.#path, this.#chosenBy);
    }
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #read(operationId: string): CommitJournalEntry | null {
    const row = this.#sql.select.get({ operation_id: operationId });
    if (row === undefined) {
      // History is append-only and entries are never deleted: history with no entry means the
      // entry's key bytes were damaged (they sort elsewhere, and its checksum is never read).
      // Creating the intent again would fail on the history's key as "unavailable" (10).
      if (this.#sql.hasHistory.get({ operation_id: operationId }) !== undefined)
        throw journalCorrupt(this.#path, 'history without its entry', operationId, this.#chosenBy);
      return null;
    }
    return rowToEntry(this.#verified('entry', row, operationId) as unknown as EntryRow);
  }

  /** The row, once its checksum matches its fields; otherwise the journal is damaged. */
  #verified(table: JournalTable, row: Record<string, unknown>, operationId: string): Record<string, unknown> {
    if (!this.#checksums || rowIntact(table, row)) return row;
    throw journalCorrupt(this.#path, 'row checksum mismatch', operationId, this.#chosenBy);
  }

  #mustRead(operationId: string): CommitJournalEntry {
    const entry = this.#read(operationId);
    if (entry !== null) return entry;
    throw new DponeError(ERROR_CODES.CAS_CONFLICT, 'no journal entry exists for this operation', {
      operationId,
    });
  }

  /** The one conditional UPDATE; zero rows means another writer won and nothing is written. */
  #apply(planned: PlannedChange, expectedVersion: number): CommitJournalEntry {
    const row: Partial<EntryRow> & { row_checksum: string } = sealed('entry', entryToRow(planned.entry));
    delete row.created_at_ms;
    const updated = this.#sql.casUpdate.run({ ...row, expected_version: expectedVersion });
    if (Number(updated.changes) !== 1) {
      throw new DponeError(ERROR_CODES.CAS_CONFLICT, 'the journal entry changed since it was read', {
        operationId: planned.entry.operation_id,
        journalVersion: expectedVersion,
      });
    }
    this.#sql.insertHistory.run({ ...sealed('history', historyToRow(planned.record)) });
    return planned.entry;
  }

  #transaction<T>(operationId: string, body: () => T): Promise<T> {
    if (this.#readOnly) {
      return Promise.reject(
        new DponeError(ERROR_CODES.INTERNAL, 'the journal was opened read-only', { operationId }),
      );
    }
    return this.#guard(operationId, () => {
      this.#db.exec('BEGIN IMMEDIATE');
      try {
        const value = body();
        this.#db.exec('COMMIT');
        return value;
      } catch (error) {
        try {
          if (this.#db.isOpen && this.#db.isTransaction) this.#db.exec('ROLLBACK');
        } catch {
          // the primary error is what the caller must see; SQLite rolls back on close anyway
        }
        throw error;
      }
    });
  }

  async #guard<T>(operationId: string | undefined, body: () => T): Promise<T> {
    if (this.#closed) throw unavailable(undefined, operationId);
    try {
      return body();
    } catch (error) {
      if (isDponeError(error)) throw error;
      throw unavailable(error, operationId, this.#path, this.#chosenBy);
    }
  }
}
