import { DponeError, ERROR_CODES, isDponeError } from '../../../src/contracts/errors.ts';
import type { CommitJournalEntry, JournalHistoryRecord } from '../../../src/contracts/journal.ts';
import type { PlannedChange } from '../../../src/contracts/journal-rules.ts';
import {
  newIntent,
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
import { planLeaseWarning } from '../../../src/adapters/journal/lease-warning.ts';
import {
  entryToRow,
  historyToRow,
  rowToEntry,
  rowToHistory,
} from '../../../src/adapters/journal/journal-row.ts';
import { parseMssqlUrl } from './mssql-config.ts';
import type { MssqlDriver, MssqlPool, MssqlRequest, MssqlTransaction } from './mssql-driver.ts';
import { MSSQL_ERRORS, loadMssqlDriver, mssqlErrorNumber } from './mssql-driver.ts';
import { MSSQL_JOURNAL_SCHEMA } from './mssql-schema.ts';
import { MSSQL_JOURNAL_SQL } from './mssql-statements.ts';

function unavailable(cause: unknown, operationId?: string): DponeError {
  // The driver's message may carry SQL, a host name or a login: it stays in `cause` only.
  return new DponeError(
    ERROR_CODES.JOURNAL_UNAVAILABLE,
    'the MSSQL commit journal could not be reached or did not answer',
    operationId !== undefined ? { operationId } : {},
    { cause },
  );
}

function bind(request: MssqlRequest, params: object): MssqlRequest {
  for (const [name, value] of Object.entries(params)) request.input(name, value);
  return request;
}

function affected(rows: readonly Record<string, unknown>[] | undefined): number {
  return Number(rows?.[0]?.affected ?? 0);
}

export interface MssqlJournalOptions {
  readonly readOnly?: boolean;
  /** `server` (default): `now` is the server's SYSUTCDATETIME(), read in each write's transaction. */
  readonly leaseClock?: LeaseClock;
  readonly warn?: JournalWarn;
}

/** The server's `now` as the locked read returned it; a row without it cannot be planned with. */
function journalNow(row: Record<string, unknown> | undefined, operationId: string): number {
  const now = Number(row?.journal_now_ms);
  if (Number.isSafeInteger(now)) return now;
  throw unavailable(undefined, operationId);
}

/**
 * Durable journal on Microsoft SQL Server through the `mssql` driver. Every change is one
 * READ COMMITTED transaction: read the entry WITH (UPDLOCK), plan with the shared rules, ONE
 * `UPDATE … WHERE operation_id = @operation_id AND version = @expected_version` checked through
 * @@ROWCOUNT, and the history INSERT. Create-if-absent is INSERT … WHERE NOT EXISTS under
 * UPDLOCK + HOLDLOCK, so of concurrent creators exactly one inserts.
 */
export class MssqlJournal implements TargetCommitJournalPort {
  readonly leaseClock: LeaseClock;
  readonly #driver: MssqlDriver;
  readonly #pool: MssqlPool;
  readonly #warn: JournalWarn | undefined;
  #closed = false;

  private constructor(driver: MssqlDriver, pool: MssqlPool, options: MssqlJournalOptions) {
    this.#driver = driver;
    this.#pool = pool;
    this.leaseClock = options.leaseClock ?? 'server';
    this.#warn = options.warn;
  }

  /**
   * Connects and creates the schema if absent (not with `readOnly`: recovery inspect and plan
   * create nothing). `loadDriver` lets unit tests hand in a fake.
   */
  static async open(
    url: string,
    password?: string,
    loadDriver: () => Promise<MssqlDriver> = loadMssqlDriver,
    options: MssqlJournalOptions = {},
  ): Promise<MssqlJournal> {
    const config = parseMssqlUrl(url, password);
    const driver = await loadDriver();
    let pool: MssqlPool | undefined;
    try {
      pool = new driver.ConnectionPool(config);
      await pool.connect();
      for (const ddl of options.readOnly ? [] : MSSQL_JOURNAL_SCHEMA) {
        await pool
          .request()
          .query(ddl)
          .catch((error: unknown) => {
            if (mssqlErrorNumber(error) !== MSSQL_ERRORS.objectExists) throw error;
          });
      }
      return new MssqlJournal(driver, pool, options);
    } catch (error) {
      await pool?.close().catch(() => undefined);
      throw unavailable(error);
    }
  }

  async createIntent(request: CreateIntentRequest): Promise<CreateIntentResult> {
    const id = request.operationId;
    return this.#transaction(id, async (tx) => {
      const nowMs =
        this.leaseClock === 'server'
          ? journalNow((await tx.request().query(MSSQL_JOURNAL_SQL.now)).recordset?.[0], id)
          : request.nowMs;
      const changes = newIntent(id, request.intentDigest, request.metadata, nowMs, request.lease);
      const entry = changes[changes.length - 1]!.entry;
      let inserted = 0;
      try {
        inserted = affected(
          (await bind(tx.request(), entryToRow(entry)).query(MSSQL_JOURNAL_SQL.createIfAbsent)).recordset,
        );
      } catch (error) {
        // A concurrent creator inserted between our check and insert: it won, we read its entry.
        if (!MSSQL_ERRORS.uniqueViolation.has(mssqlErrorNumber(error) ?? -1)) throw error;
      }
      if (inserted === 1) {
        for (const change of changes) {
          await bind(tx.request(), historyToRow(change.record)).query(MSSQL_JOURNAL_SQL.insertHistory);
        }
        return { entry, created: true };
      }
      const existing = await this.#read(tx.request(), MSSQL_JOURNAL_SQL.select, id);
      if (existing === null) throw unavailable(undefined, id);
      return { entry: existing, created: false };
    });
  }

  async compareAndSet(request: CompareAndSetRequest): Promise<CommitJournalEntry> {
    return this.#transaction(request.operationId, async (tx) => {
      const { entry, nowMs } = await this.#mustRead(tx, request.operationId, request.nowMs);
      return this.#apply(tx, planTransition(entry, { ...request, nowMs }), request.expectedVersion);
    });
  }

  /** Every transition's UPDATE and history row in the one transaction (one commit). */
  async compareAndSetChain(request: CompareAndSetChainRequest): Promise<CommitJournalEntry> {
    return this.#transaction(request.operationId, async (tx) => {
      const { entry, nowMs } = await this.#mustRead(tx, request.operationId, request.nowMs);
      let written = entry;
      for (const [index, change] of planTransitions(entry, { ...request, nowMs }).entries())
        written = await this.#apply(tx, change, request.expectedVersion + index);
      return written;
    });
  }

  async acquireLease(request: LeaseRequest): Promise<CommitJournalEntry> {
    return this.#transaction(request.operationId, async (tx) => {
      const { entry, nowMs } = await this.#mustRead(tx, request.operationId, request.nowMs);
      const planned = planLeaseWarning(entry, { ...request, nowMs }, this.#warn);
      return this.#apply(tx, planned, request.expectedVersion);
    });
  }

  async expireLease(request: ExpireLeaseRequest): Promise<CommitJournalEntry> {
    return this.#transaction(request.operationId, async (tx) => {
      const { entry, nowMs } = await this.#mustRead(tx, request.operationId, request.nowMs);
      return this.#apply(tx, planLeaseExpiry(entry, { ...request, nowMs }), request.expectedVersion);
    });
  }

  async get(operationId: string): Promise<CommitJournalEntry | null> {
    return this.#guard(operationId, () =>
      this.#read(this.#pool.request(), MSSQL_JOURNAL_SQL.select, operationId),
    );
  }

  async history(operationId: string): Promise<readonly JournalHistoryRecord[]> {
    return this.#guard(operationId, async () => {
      const result = await bind(this.#pool.request(), { operation_id: operationId }).query(
        MSSQL_JOURNAL_SQL.history,
      );
      return (result.recordset ?? []).map((row) => rowToHistory(row as Parameters<typeof rowToHistory>[0]));
    });
  }

  async list(): Promise<readonly string[]> {
    return this.#guard(undefined, async () => {
      const result = await this.#pool.request().query(MSSQL_JOURNAL_SQL.list);
      return (result.recordset ?? []).map((row) => String(row.operation_id));
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    try {
      await this.#pool.close();
    } catch (error) {
      throw unavailable(error);
    }
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  async #read(request: MssqlRequest, text: string, operationId: string): Promise<CommitJournalEntry | null> {
    const row = (await bind(request, { operation_id: operationId }).query(text)).recordset?.[0];
    return row === undefined ? null : rowToEntry(row as Parameters<typeof rowToEntry>[0]);
  }

  /** The entry, locked, with the `now` its write is planned with (the server's, on the server clock). */
  async #mustRead(
    tx: MssqlTransaction,
    operationId: string,
    callerNowMs: number,
  ): Promise<{ entry: CommitJournalEntry; nowMs: number }> {
    const request = bind(tx.request(), { operation_id: operationId });
    const row = (await request.query(MSSQL_JOURNAL_SQL.selectForUpdate)).recordset?.[0];
    if (row === undefined) {
      throw new DponeError(ERROR_CODES.CAS_CONFLICT, 'no journal entry exists for this operation', {
        operationId,
      });
    }
    const entry = rowToEntry(row as Parameters<typeof rowToEntry>[0]);
    return { entry, nowMs: this.leaseClock === 'server' ? journalNow(row, operationId) : callerNowMs };
  }

  /** The one conditional UPDATE; @@ROWCOUNT 0 means another writer won and nothing is written. */
  async #apply(
    tx: MssqlTransaction,
    planned: PlannedChange,
    expectedVersion: number,
  ): Promise<CommitJournalEntry> {
    const { created_at_ms: _created, ...row } = entryToRow(planned.entry);
    const result = await bind(tx.request(), { ...row, expected_version: expectedVersion }).query(
      MSSQL_JOURNAL_SQL.casUpdate,
    );
    if (affected(result.recordset) !== 1) {
      throw new DponeError(ERROR_CODES.CAS_CONFLICT, 'the journal entry changed since it was read', {
        operationId: planned.entry.operation_id,
        journalVersion: expectedVersion,
      });
    }
    await bind(tx.request(), historyToRow(planned.record)).query(MSSQL_JOURNAL_SQL.insertHistory);
    return planned.entry;
  }

  async #transaction<T>(operationId: string, body: (tx: MssqlTransaction) => Promise<T>): Promise<T> {
    return this.#guard(operationId, async () => {
      const tx = this.#pool.transaction();
      await tx.begin(this.#driver.ISOLATION_LEVEL.READ_COMMITTED);
      try {
        const value = await body(tx);
        await tx.commit();
        return value;
      } catch (error) {
        await tx.rollback().catch(() => undefined);
        throw error;
      }
    });
  }

  async #guard<T>(operationId: string | undefined, body: () => Promise<T>): Promise<T> {
    if (this.#closed) throw unavailable(undefined, operationId);
    try {
      return await body();
    } catch (error) {
      if (isDponeError(error)) throw error;
      if (mssqlErrorNumber(error) === MSSQL_ERRORS.deadlock) {
        // The server rolled the loser back: nothing changed, exactly like a lost compare-and-set.
        throw new DponeError(ERROR_CODES.CAS_CONFLICT, 'the journal write lost a concurrent race', {
          ...(operationId !== undefined ? { operationId } : {}),
        });
      }
      throw unavailable(error, operationId);
    }
  }
}
