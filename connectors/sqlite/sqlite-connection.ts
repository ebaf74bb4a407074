import { DatabaseSync } from 'node:sqlite';
import { DponeError } from '../../src/contracts/errors.ts';
import type { ErrorCode } from '../../src/contracts/errors.ts';
import type { CellValue } from '../../src/ports/connector.ts';

/** The slice of node:sqlite this folder uses, so a test can see what the connectors depend on. */
export interface SqliteStatement {
  run(...params: SqliteParams): { changes: number | bigint };
  get(...params: SqliteParams): Record<string, unknown> | undefined;
  all(...params: SqliteParams): Record<string, unknown>[];
  /** The result columns; none for a statement that returns no rows. */
  columns(): readonly unknown[];
  /** Integers come back as bigint (exact beyond 2^53) instead of a rounded number. */
  setReadBigInts(enabled: boolean): void;
  /** Rows come back as arrays of values in column order instead of objects. */
  setReturnArrays(enabled: boolean): void;
  /** Steps through the result one row at a time (nothing is read ahead). */
  iterate(...params: SqliteParams): IterableIterator<unknown>;
}

export interface SqliteDatabase {
  exec(sql: string): void;
  prepare(sql: string): SqliteStatement;
  close(): void;
  readonly isOpen: boolean;
}

export type SqliteParam = string | number | bigint | null;
/** Positional values, or one object of named values (`@name` in the SQL). */
export type SqliteParams = SqliteParam[] | [Readonly<Record<string, SqliteParam>>];

/** How long a writer waits for another process's write lock before SQLite reports SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 5_000;

/**
 * Opens a database file for a connector: WAL so readers never block the writer, synchronous=FULL
 * so a COMMIT that returned survives a power cut, and a busy timeout so two workers writing one
 * target queue instead of failing at once.
 */
export function openSqlite(path: string, unsafe: { synchronous?: 'OFF' | 'NORMAL' } = {}): SqliteDatabase {
  const db = new DatabaseSync(path);
  db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
  db.exec('PRAGMA journal_mode = WAL');
  // OFF or NORMAL only for the harness's `target-sync-off`/`-normal` variants (sqlite-unsafe-variants.ts).
  db.exec(`PRAGMA synchronous = ${unsafe.synchronous ?? 'FULL'}`);
  return db as unknown as SqliteDatabase;
}

/**
 * Opens a source file read-only: a source is never written, not even to switch its journal mode,
 * so many workers can read one source without queueing on its write lock.
 */
export function openSqliteReadOnly(path: string): SqliteDatabase {
  const db = new DatabaseSync(path, { readOnly: true });
  db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
  return db as unknown as SqliteDatabase;
}

/** What `open` opens; when the driver throws, `code` with `message`, the driver's error only its cause. */
export function openedOr<T>(open: () => T, code: ErrorCode, message: string): T {
  try {
    return open();
  } catch (error) {
    throw new DponeError(code, message, {}, { cause: error });
  }
}

/** Quotes an identifier (table or column) for SQL; `schema.table` is quoted part by part. */
export function quoteIdentifier(name: string): string {
  return name
    .split('.')
    .map((part) => `"${part.replaceAll('"', '""')}"`)
    .join('.');
}

/**
 * Binds a cell so SQLite stores it with the type it had: node:sqlite binds every JS number as
 * REAL, which would turn a source INTEGER 3 into 3.0 in the target and break row parity.
 */
export function bindCell(value: CellValue): SqliteParam {
  return typeof value === 'number' && Number.isSafeInteger(value) ? BigInt(value) : value;
}

/** Rolls back if a transaction is open; a failure here must not hide the error that caused it. */
export function rollbackQuietly(db: SqliteDatabase): void {
  try {
    db.exec('ROLLBACK');
  } catch {
    // No transaction was open (SQLite already rolled it back) or the connection is gone.
  }
}
