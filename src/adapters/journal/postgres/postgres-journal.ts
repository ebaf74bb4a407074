import pg from 'pg';
import type { PoolClient } from 'pg';
import { DponeError, ERROR_CODES, isDponeError } from '../../../contracts/errors.ts';
import type { CommitJournalEntry, JournalHistoryRecord } from '../../../contracts/journal.ts';
import type { PlannedChange } from '../../../contracts/journal-rules.ts';
import { newEntry, planLease, planTransition } from '../../../contracts/journal-rules.ts';
import type {
  CompareAndSetRequest,
  CreateIntentRequest,
  CreateIntentResult,
  LeaseRequest,
  TargetCommitJournalPort,
} from '../../../ports/journal.ts';
import {
  ENTRY_COLUMNS,
  HISTORY_COLUMNS,
  entryToRow,
  historyToRow,
  rowToEntry,
  rowToHistory,
} from '../journal-row.ts';
import type { EntryRow, HistoryRow } from '../journal-row.ts';
import { parseJournalUrl } from './postgres-journal-config.ts';
import {
  POSTGRES_JOURNAL_LOCK_KEY,
  POSTGRES_JOURNAL_READY,
  POSTGRES_JOURNAL_SCHEMA,
} from './postgres-journal-schema.ts';

const ENTRY = 'dpone_commit_journal';
const HISTORY = 'dpone_commit_journal_history';
const UPDATED = ENTRY_COLUMNS.filter((c) => c !== 'operation_id' && c !== 'created_at_ms');
const placeholders = (n: number, from = 1) => Array.from({ length: n }, (_, i) => `$${i + from}`).join(', ');

const SQL = {
  select: `SELECT * FROM ${ENTRY} WHERE operation_id = $1`,
  insertEntry:
    `INSERT INTO ${ENTRY} (${ENTRY_COLUMNS.join(', ')}) VALUES (${placeholders(ENTRY_COLUMNS.length)}) ` +
    'ON CONFLICT (operation_id) DO NOTHING',
  casUpdate:
    `UPDATE ${ENTRY} SET ${UPDATED.map((c, i) => `${c} = $${i + 1}`).join(', ')} ` +
    `WHERE operation_id = $${UPDATED.length + 1} AND version = $${UPDATED.length + 2}`,
  insertHistory: `INSERT INTO ${HISTORY} (${HISTORY_COLUMNS.join(', ')}) VALUES (${placeholders(HISTORY_COLUMNS.length)})`,
  history: `SELECT * FROM ${HISTORY} WHERE operation_id = $1 ORDER BY version`,
  list: `SELECT operation_id FROM ${ENTRY} ORDER BY operation_id`,
} as const;

function unavailable(cause: unknown, operationId?: string): DponeError {
  // The driver's message may hold the statement, host or user: it stays in `cause` only.
  return new DponeError(
    ERROR_CODES.JOURNAL_UNAVAILABLE,
    'the PostgreSQL commit journal could not be reached or did not answer in time',
    operationId !== undefined ? { operationId } : {},
    { cause },
  );
}

/**
 * Durable journal in PostgreSQL (synchronous commit). Every write is one READ COMMITTED
 * transaction: read the entry, plan the change with the shared rules, apply it with ONE
 * conditional `UPDATE … WHERE operation_id = $ AND version = $` and append its history row. A
 * concurrent writer's committed UPDATE makes ours match zero rows, so exactly one wins.
 * Client-side timeouts bound every call, so a black-holed network ends as JOURNAL_UNAVAILABLE.
 */
export class PostgresJournal implements TargetCommitJournalPort {
  readonly #pool: pg.Pool;
  #closed = false;

  private constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  /** Opens a pool on the URL's database and creates the schema if absent. */
  static async open(url: string, password?: string): Promise<PostgresJournal> {
    const pool = new pg.Pool(parseJournalUrl(url, password));
    // An idle client losing its server must not crash the process; the next call reports it.
    pool.on('error', () => undefined);
    pool.on('connect', (client) => client.on('error', () => undefined));
    const journal = new PostgresJournal(pool);
    try {
      await journal.#transaction(undefined, async (client) => {
        // Skip all DDL (and its table locks) when the schema is there: racing openers stay cheap.
        const ready = await client.query(POSTGRES_JOURNAL_READY);
        if (ready.rows[0]?.ready === true) return;
        await client.query('SELECT pg_advisory_xact_lock($1)', [POSTGRES_JOURNAL_LOCK_KEY]);
        await client.query(POSTGRES_JOURNAL_SCHEMA);
      });
      return journal;
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw isDponeError(error) ? error : unavailable(error);
    }
  }

  async createIntent(request: CreateIntentRequest): Promise<CreateIntentResult> {
    const id = request.operationId;
    return this.#transaction(id, async (client) => {
      const planned = newEntry(id, request.intentDigest, request.metadata, request.nowMs);
      const row = entryToRow(planned.entry);
      const inserted = await client.query(
        SQL.insertEntry,
        ENTRY_COLUMNS.map((c) => row[c]),
      );
      if (inserted.rowCount === 1) {
        await this.#insertHistory(client, planned);
        return { entry: planned.entry, created: true };
      }
      // The conflicting insert has committed (ON CONFLICT waited for it): this read sees it.
      return { entry: (await this.#read(client, id))!, created: false };
    });
  }

  async compareAndSet(request: CompareAndSetRequest): Promise<CommitJournalEntry> {
    return this.#transaction(request.operationId, async (client) =>
      this.#apply(
        client,
        planTransition(await this.#mustRead(client, request.operationId), request),
        request.expectedVersion,
      ),
    );
  }

  async acquireLease(request: LeaseRequest): Promise<CommitJournalEntry> {
    return this.#transaction(request.operationId, async (client) =>
      this.#apply(
        client,
        planLease(await this.#mustRead(client, request.operationId), request),
        request.expectedVersion,
      ),
    );
  }

  async get(operationId: string): Promise<CommitJournalEntry | null> {
    return this.#withClient(operationId, (client) => this.#read(client, operationId));
  }

  async history(operationId: string): Promise<readonly JournalHistoryRecord[]> {
    return this.#withClient(operationId, async (client) => {
      const result = await client.query(SQL.history, [operationId]);
      return result.rows.map((row) => rowToHistory(row as HistoryRow));
    });
  }

  async list(): Promise<readonly string[]> {
    return this.#withClient(undefined, async (client) => {
      const result = await client.query(SQL.list);
      return result.rows.map((row) => String((row as { operation_id: unknown }).operation_id));
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#pool.end().catch(() => undefined);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  async #read(client: PoolClient, operationId: string): Promise<CommitJournalEntry | null> {
    const result = await client.query(SQL.select, [operationId]);
    return result.rows.length === 0 ? null : rowToEntry(result.rows[0] as EntryRow);
  }

  async #mustRead(client: PoolClient, operationId: string): Promise<CommitJournalEntry> {
    const entry = await this.#read(client, operationId);
    if (entry !== null) return entry;
    throw new DponeError(ERROR_CODES.CAS_CONFLICT, 'no journal entry exists for this operation', {
      operationId,
    });
  }

  /** The one conditional UPDATE; zero rows means another writer won and nothing is written. */
  async #apply(
    client: PoolClient,
    planned: PlannedChange,
    expectedVersion: number,
  ): Promise<CommitJournalEntry> {
    const row = entryToRow(planned.entry);
    const values = [...UPDATED.map((c) => row[c]), planned.entry.operation_id, expectedVersion];
    const updated = await client.query(SQL.casUpdate, values);
    if (updated.rowCount !== 1) {
      throw new DponeError(ERROR_CODES.CAS_CONFLICT, 'the journal entry changed since it was read', {
        operationId: planned.entry.operation_id,
        journalVersion: expectedVersion,
      });
    }
    await this.#insertHistory(client, planned);
    return planned.entry;
  }

  async #insertHistory(client: PoolClient, planned: PlannedChange): Promise<void> {
    const row = historyToRow(planned.record);
    await client.query(
      SQL.insertHistory,
      HISTORY_COLUMNS.map((c) => row[c]),
    );
  }

  async #transaction<T>(
    operationId: string | undefined,
    body: (client: PoolClient) => Promise<T>,
  ): Promise<T> {
    return this.#withClient(operationId, async (client) => {
      await client.query('BEGIN');
      try {
        const value = await body(client);
        await client.query('COMMIT');
        return value;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }

  async #withClient<T>(
    operationId: string | undefined,
    body: (client: PoolClient) => Promise<T>,
  ): Promise<T> {
    if (this.#closed) throw unavailable(undefined, operationId);
    let client: PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (error) {
      throw unavailable(error, operationId);
    }
    let broken = false;
    try {
      return await body(client);
    } catch (error) {
      if (isDponeError(error)) throw error;
      broken = true;
      throw unavailable(error, operationId);
    } finally {
      // A client that failed mid-call (timeout, reset) is in an unknown protocol state: discard it.
      client.release(broken);
    }
  }
}
