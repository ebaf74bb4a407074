import pg from 'pg';
import type { PoolClient } from 'pg';
import { DponeError, ERROR_CODES, isDponeError } from '../../../src/contracts/errors.ts';
import type { CommitJournalEntry, JournalHistoryRecord } from '../../../src/contracts/journal.ts';
import type { PlannedChange } from '../../../src/contracts/journal-rules.ts';
import {
  checkLeaseInput,
  newIntent,
  planLease,
  planLeaseExpiry,
  planTransition,
  planTransitions,
} from '../../../src/contracts/journal-rules.ts';
import type { LeaseClock } from '../../../src/contracts/lease-clock.ts';
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
import {
  casChainStatement,
  casChainValues,
  casStatement,
  casValues,
  chainFollows,
  expireStatement,
  expireValues,
  leaseStatement,
  leaseValues,
  legalFromStates,
  readWithClock,
} from './postgres-journal-cas.ts';
import type { PinnedSettings } from '../postgres-settings.ts';
import { beginPinned } from '../postgres-settings.ts';
import type { JournalSessionConfig } from './postgres-journal-config.ts';
import type { PgStatement } from './postgres-journal-cas.ts';
import { parseJournalUrl } from './postgres-journal-config.ts';
import { journalOpenFailure } from './postgres-journal-errors.ts';
import { postgresDiskFull } from '../postgres-errors.ts';
import {
  CHECKSUM_COLUMN,
  POSTGRES_JOURNAL_LOCK_KEY,
  POSTGRES_JOURNAL_READY,
  POSTGRES_JOURNAL_SCHEMA,
  SEAL,
  entryIntact,
  historyIntact,
  inSchema,
} from './postgres-journal-schema.ts';

const ENTRY = 'dpone_commit_journal';
const HISTORY = 'dpone_commit_journal_history';
const placeholders = (n: number, from = 1) => Array.from({ length: n }, (_, i) => `$${i + from}`).join(', ');

const BASE_SQL = {
  select: `SELECT e.*, ${entryIntact('e')} AS row_intact FROM ${ENTRY} e WHERE operation_id = $1`,
  insertEntry:
    `INSERT INTO ${ENTRY} (${ENTRY_COLUMNS.join(', ')}, ${CHECKSUM_COLUMN}) VALUES (${placeholders(ENTRY_COLUMNS.length)}, ${SEAL}) ` +
    'ON CONFLICT (operation_id) DO NOTHING',
  insertHistory: `INSERT INTO ${HISTORY} (${HISTORY_COLUMNS.join(', ')}, ${CHECKSUM_COLUMN}) VALUES (${placeholders(HISTORY_COLUMNS.length)}, ${SEAL})`,
  history: `SELECT h.*, ${historyIntact('h')} AS row_intact FROM ${HISTORY} h WHERE operation_id = $1 ORDER BY version`,
  list: `SELECT operation_id FROM ${ENTRY} ORDER BY operation_id`,
} as const;

type JournalSql = Readonly<
  Record<keyof typeof BASE_SQL | 'ready' | 'schema', string> &
    Record<'cas' | 'casChain' | 'lease' | 'expire' | 'read', PgStatement>
>;

function journalSql(schema: string | undefined, clock: LeaseClock): JournalSql {
  const named = (sql: string) => inSchema(sql, schema);
  const statement = (st: PgStatement): PgStatement => ({ text: named(st.text) });
  return {
    select: named(BASE_SQL.select),
    insertEntry: named(BASE_SQL.insertEntry),
    insertHistory: named(BASE_SQL.insertHistory),
    history: named(BASE_SQL.history),
    list: named(BASE_SQL.list),
    cas: statement(casStatement(clock)),
    casChain: statement(casChainStatement(clock)),
    lease: statement(leaseStatement(clock)),
    expire: statement(expireStatement(clock)),
    read: statement(readWithClock(clock)),
    ready: named(POSTGRES_JOURNAL_READY),
    schema: named(POSTGRES_JOURNAL_SCHEMA),
  };
}

/** What the lease statement returns beside the entry: the lease it read as a clock fault, if any. */
interface LeaseRowExtras {
  readonly faulted_holder?: unknown;
  readonly faulted_epoch?: unknown;
  readonly faulted_expires_at_ms?: unknown;
  readonly journal_now_ms?: unknown;
}

/** The entry moved between the write and the classifying read (the planner accepted it there). */
function lost(operationId: string, expectedVersion: number): DponeError {
  return new DponeError(ERROR_CODES.CAS_CONFLICT, 'the journal entry changed since it was read', {
    operationId,
    journalVersion: expectedVersion,
  });
}

/**
 * A row whose checksum does not match its fields (postgres-journal-schema.ts): changed behind the
 * journal's back, or written by a writer that does not seal its rows. Restore, do not retry.
 */
function corrupt(table: string, operationId: string): DponeError {
  return new DponeError(
    ERROR_CODES.JOURNAL_CORRUPT,
    `the PostgreSQL commit journal could not be read: a row of ${table} is damaged (row checksum mismatch)`,
    {
      operationId,
      hint: 'restore the journal from a backup (or recover it with `dpone recovery target-commit`); do not retry: the target fence still says what committed',
    },
  );
}

/** The row, once the server found its checksum matching its fields (`row_intact`); otherwise damage. */
function intact<T>(table: string, operationId: string, row: T): T {
  if ((row as { row_intact?: unknown }).row_intact === true) return row;
  throw corrupt(table, operationId);
}

function unavailable(cause: unknown, operationId?: string): DponeError {
  // A full disk under the journal's server says so (free space, then retry), as a file journal's does.
  const full = postgresDiskFull(
    cause,
    'PostgreSQL commit journal',
    operationId !== undefined ? { operationId } : {},
  );
  if (full) return full;
  // The driver's message may hold the statement, host or user: it stays in `cause` only.
  return new DponeError(
    ERROR_CODES.JOURNAL_UNAVAILABLE,
    'the PostgreSQL commit journal could not be reached or did not answer in time',
    operationId !== undefined ? { operationId } : {},
    { cause },
  );
}

export interface PostgresJournalOptions {
  readonly readOnly?: boolean;
  /**
   * Whose clock decides leases and instants: `server` (default) the server's `clock_timestamp()`
   * inside each write; `caller` the requests' `nowMs` (the conformance suite's fixed instants, and
   * the harness's unsafe variant that trusts the holder's clock).
   */
  readonly leaseClock?: LeaseClock;
  /** Hears a takeover of a clock-faulted lease (the server clock stepped back more than a day). */
  readonly warn?: JournalWarn;
}

/**
 * Durable journal in PostgreSQL (synchronous_commit pinned on every write, never a server default). A compare-and-set or lease is ONE
 * autocommit statement (postgres-journal-cas.ts): lock the entry at the expected version, update
 * it, append its history row. A concurrent writer's committed change makes ours match zero rows,
 * so exactly one wins; the loser reads once and the shared planner names the error. Creating an
 * intent is one READ COMMITTED transaction (insert-if-absent, then its history row).
 * Client-side timeouts bound every call, so a black-holed network ends as JOURNAL_UNAVAILABLE.
 * Leases are decided by the server's clock (see PostgresJournalOptions.leaseClock).
 */
export class PostgresJournal implements TargetCommitJournalPort {
  readonly leaseClock: LeaseClock;
  readonly #pool: pg.Pool;
  readonly #readOnly: boolean;
  readonly #warn: JournalWarn | undefined;
  readonly #sql: JournalSql;
  readonly #pinned: PinnedSettings;
  #closed = false;

  private constructor(pool: pg.Pool, options: PostgresJournalOptions, config: JournalSessionConfig) {
    this.#pool = pool;
    this.#readOnly = options.readOnly === true;
    this.#warn = options.warn;
    const clock = options.leaseClock ?? 'server';
    this.leaseClock = clock;
    this.#sql = journalSql(config.schema, clock);
    this.#pinned = config.pinned;
  }

  /**
   * Opens a pool on the URL's database and creates the schema if absent. With `readOnly`
   * (recovery inspect and plan) nothing is created: a database without the journal schema is
   * JOURNAL_UNAVAILABLE, every read runs in a READ ONLY transaction and writes are refused.
   */
  static async open(
    url: string,
    password?: string,
    options: PostgresJournalOptions = {},
  ): Promise<PostgresJournal> {
    const config = parseJournalUrl(url, password);
    const pool = new pg.Pool(config.pool);
    // An idle client losing its server must not crash the process; the next call reports it.
    pool.on('error', () => undefined);
    pool.on('connect', (client) => client.on('error', () => undefined));
    const readOnly = options.readOnly === true;
    const journal = new PostgresJournal(pool, options, config);
    try {
      await journal.#transaction(undefined, async (client) => {
        // Skip all DDL (and its table locks) when the schema is there: racing openers stay cheap.
        const ready = await client.query(journal.#sql.ready);
        if (ready.rows[0]?.ready === true) return;
        if (readOnly && ready.rows[0]?.present === true)
          throw new DponeError(
            ERROR_CODES.JOURNAL_UNAVAILABLE,
            'the PostgreSQL commit journal is from before row checksums (or its triggers are missing); nothing was changed',
            {
              hint: 'open it read-write once (any dpone run against it adds the checksums), or restore its schema, then read it again',
            },
          );
        if (readOnly) {
          throw new DponeError(
            ERROR_CODES.JOURNAL_UNAVAILABLE,
            'the PostgreSQL database holds no commit journal (its schema is missing); nothing was created',
          );
        }
        await client.query('SELECT pg_advisory_xact_lock($1)', [POSTGRES_JOURNAL_LOCK_KEY]);
        await client.query(journal.#sql.schema);
      });
      return journal;
    } catch (error) {
      await pool.end().catch(() => undefined);
      // #withClient wrapped the driver's error as JOURNAL_UNAVAILABLE: its cause decides.
      // Our own refusals (no cause: a missing or un-upgraded schema read-only) pass as they are.
      const wrapped =
        isDponeError(error, ERROR_CODES.JOURNAL_UNAVAILABLE) && (error as Error).cause !== undefined;
      const driver = wrapped ? (error as Error).cause : error;
      throw isDponeError(driver) ? driver : journalOpenFailure(driver);
    }
  }

  async createIntent(request: CreateIntentRequest): Promise<CreateIntentResult> {
    const id = request.operationId;
    this.#writable(id);
    // The server's clock is read with BEGIN, in the same round trip.
    const serverNow = this.leaseClock === 'server';
    return this.#transaction(id, async (client, beganAtMs) => {
      const nowMs = serverNow && beganAtMs !== null ? beganAtMs : request.nowMs;
      const changes = newIntent(id, request.intentDigest, request.metadata, nowMs, request.lease);
      const entry = changes[changes.length - 1]!.entry;
      const row = entryToRow(entry);
      const inserted = await client.query(
        this.#sql.insertEntry,
        ENTRY_COLUMNS.map((c) => row[c]),
      );
      if (inserted.rowCount === 1) {
        for (const change of changes) await this.#insertHistory(client, change);
        return { entry, created: true };
      }
      // The conflicting insert has committed (ON CONFLICT waited for it): this read sees it.
      return { entry: (await this.#read(client, id))!, created: false };
    });
  }

  /** One statement (one round trip); on zero rows, one read lets the planner name the failure. */
  async compareAndSet(request: CompareAndSetRequest): Promise<CommitJournalEntry> {
    return this.#writeOrExplain(
      request,
      () => {
        const from = legalFromStates(request);
        if (from.length === 0) return null;
        return {
          ...this.#sql.cas,
          values: casValues(request, from, this.leaseClock, this.#pinned.durableCommit),
        };
      },
      (entry) => planTransition(entry, request),
    );
  }

  /**
   * One statement (one round trip, one commit) for the whole chain; on zero rows, or a chain whose
   * later transitions do not follow, one read lets the planner name the failure.
   */
  async compareAndSetChain(request: CompareAndSetChainRequest): Promise<CommitJournalEntry> {
    return this.#writeOrExplain(
      request,
      () => {
        const first = request.transitions[0];
        const from = first === undefined ? [] : legalFromStates(first);
        if (from.length === 0 || !chainFollows(request)) return null;
        return {
          ...this.#sql.casChain,
          values: casChainValues(request, from, this.leaseClock, this.#pinned.durableCommit),
        };
      },
      (entry) => planTransitions(entry, request),
    );
  }

  /** One statement (one round trip); on zero rows, one read lets the planner name the failure. */
  async expireLease(request: ExpireLeaseRequest): Promise<CommitJournalEntry> {
    return this.#writeOrExplain(
      request,
      () => ({
        ...this.#sql.expire,
        values: expireValues(request, this.leaseClock, this.#pinned.durableCommit),
      }),
      (entry) => planLeaseExpiry(entry, request),
    );
  }

  /**
   * Sends the write `query` builds (null: the rules already refuse it, nothing is sent) as one
   * statement; when it matched no row, one read of the entry lets `explain` (the shared journal
   * rules) name the failure, and a write the rules still allow lost to a concurrent one.
   */
  async #writeOrExplain(
    request: { readonly operationId: string; readonly expectedVersion: number; readonly nowMs: number },
    query: () => (PgStatement & { readonly values: unknown[] }) | null,
    explain: (entry: CommitJournalEntry) => void,
  ): Promise<CommitJournalEntry> {
    const id = request.operationId;
    this.#writable(id);
    return this.#withClient(id, async (client) => {
      const write = query();
      if (write !== null) {
        const written = await client.query(write);
        if (written.rows.length === 1) return rowToEntry(written.rows[0] as EntryRow);
      }
      explain((await this.#mustRead(client, id, request.nowMs)).entry);
      throw lost(id, request.expectedVersion);
    });
  }

  /** One statement (one round trip); on zero rows, one read lets the planner name the failure. */
  async acquireLease(request: LeaseRequest): Promise<CommitJournalEntry> {
    const id = request.operationId;
    this.#writable(id);
    checkLeaseInput(request);
    return this.#withClient(id, async (client) => {
      const values = leaseValues(request, this.leaseClock, this.#pinned.durableCommit);
      const written = await client.query({ ...this.#sql.lease, values });
      const row = written.rows[0] as (EntryRow & LeaseRowExtras) | undefined;
      if (row !== undefined) {
        const entry = rowToEntry(row);
        this.#warnIfClockFault(row, entry);
        return entry;
      }
      // Named by the journal's own clock: the caller's may be wrong.
      const { entry, nowMs } = await this.#mustRead(client, id, request.nowMs);
      planLease(entry, { ...request, nowMs });
      throw lost(id, request.expectedVersion);
    });
  }

  async get(operationId: string): Promise<CommitJournalEntry | null> {
    return this.#reading(operationId, (client) => this.#read(client, operationId));
  }

  async history(operationId: string): Promise<readonly JournalHistoryRecord[]> {
    return this.#reading(operationId, async (client) => {
      const result = await client.query(this.#sql.history, [operationId]);
      return result.rows.map((row) => rowToHistory(intact(HISTORY, operationId, row as HistoryRow)));
    });
  }

  async list(): Promise<readonly string[]> {
    return this.#reading(undefined, async (client) => {
      const result = await client.query(this.#sql.list);
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

  #writable(operationId: string): void {
    if (this.#readOnly) {
      throw new DponeError(ERROR_CODES.INTERNAL, 'the journal was opened read-only', { operationId });
    }
  }

  async #read(client: PoolClient, operationId: string): Promise<CommitJournalEntry | null> {
    const result = await client.query(this.#sql.select, [operationId]);
    return result.rows.length === 0
      ? null
      : rowToEntry(intact(ENTRY, operationId, result.rows[0] as EntryRow));
  }

  /** The entry with the journal's `now` (the server's, or the caller's `nowMs` on the caller clock). */
  async #mustRead(
    client: PoolClient,
    operationId: string,
    callerNowMs: number,
  ): Promise<{ entry: CommitJournalEntry; nowMs: number }> {
    const values = this.leaseClock === 'server' ? [operationId] : [operationId, callerNowMs];
    const result = await client.query({ ...this.#sql.read, values });
    const row = result.rows[0] as (EntryRow & { journal_now_ms: unknown }) | undefined;
    if (row !== undefined)
      return { entry: rowToEntry(intact(ENTRY, operationId, row)), nowMs: Number(row.journal_now_ms) };
    throw new DponeError(ERROR_CODES.CAS_CONFLICT, 'no journal entry exists for this operation', {
      operationId,
    });
  }

  #warnIfClockFault(row: LeaseRowExtras, entry: CommitJournalEntry): void {
    if (this.#warn === undefined || row.faulted_holder === null || row.faulted_holder === undefined) return;
    const lease = {
      holder: String(row.faulted_holder),
      epoch: Number(row.faulted_epoch),
      expires_at_ms: Number(row.faulted_expires_at_ms),
    };
    warnClockFault(this.#warn, lease, Number(row.journal_now_ms), entry.lease?.epoch ?? 0);
  }

  async #insertHistory(client: PoolClient, planned: PlannedChange): Promise<void> {
    const row = historyToRow(planned.record);
    await client.query(
      this.#sql.insertHistory,
      HISTORY_COLUMNS.map((c) => row[c]),
    );
  }

  /** `body` gets the server's clock read together with BEGIN (one round trip), or null read-only. */
  async #transaction<T>(
    operationId: string | undefined,
    body: (client: PoolClient, beganAtMs: number | null) => Promise<T>,
  ): Promise<T> {
    return this.#withClient(operationId, async (client) => {
      // Timeouts and (for writes) synchronous_commit pinned locally and read back: a pooler keeps
      // a transaction on one server connection, never a session setting. The server's clock is
      // read in the same round trip (beganAtMs), null read-only.
      const mode = this.#readOnly ? 'read-only' : 'read-write';
      const serverNowMs = await beginPinned(client, this.#pinned, mode);
      const beganAtMs = this.#readOnly ? null : serverNowMs;
      try {
        const value = await body(client, beganAtMs);
        await client.query(this.#readOnly ? 'ROLLBACK' : 'COMMIT');
        return value;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }

  /** A read: one autocommit statement, or in a READ ONLY transaction when opened read-only. */
  #reading<T>(operationId: string | undefined, body: (client: PoolClient) => Promise<T>): Promise<T> {
    return this.#readOnly ? this.#transaction(operationId, body) : this.#withClient(operationId, body);
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
