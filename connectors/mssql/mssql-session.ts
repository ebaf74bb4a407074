import { isDponeError } from '../../src/contracts/errors.ts';
import type { MssqlPoolConfig } from './mssql-connector-config.ts';

/**
 * The slice of the `mssql` driver the connectors use, typed here rather than taken from the
 * driver's own types: unit tests hand the connectors a small fake of exactly this surface, and the
 * real driver is loaded only when an MSSQL connector first connects.
 */
export interface MssqlResult {
  readonly recordset?: readonly Record<string, unknown>[];
  readonly rowsAffected: readonly number[];
}

/** A request that binds parameters and sends SQL text: all the journal (journal/) asks of one. */
export interface MssqlQueryRequest {
  /** Binds a named parameter (`@name`); the driver infers the SQL type from the JS value. */
  input(name: string, value: unknown): MssqlQueryRequest;
  query(text: string): Promise<MssqlResult>;
}

export interface MssqlRequest extends MssqlQueryRequest {
  input(name: string, value: unknown): MssqlRequest;
  /** Loads the table's rows with the TDS bulk-load protocol (`INSERT BULK`), in the request's transaction. */
  bulk(table: MssqlTable): Promise<{ readonly rowsAffected: number }>;
}

/** The driver's `Table`: the rows of one bulk load and the columns they fill. */
export interface MssqlTable {
  create: boolean;
  readonly columns: { add(name: string, type: unknown, options?: { nullable?: boolean }): unknown };
  readonly rows: { add(...values: unknown[]): unknown };
}

/** A transaction whose requests are `Request` (the connectors': with bulk loads; the journal's: queries). */
export interface MssqlTransaction<Request extends MssqlQueryRequest = MssqlRequest> {
  begin(isolationLevel?: number): Promise<unknown>;
  commit(): Promise<void>;
  rollback(): Promise<void>;
  request(): Request;
}

export interface MssqlPool<Request extends MssqlQueryRequest = MssqlRequest> {
  connect(): Promise<unknown>;
  close(): Promise<unknown>;
  request(): Request;
  transaction(): MssqlTransaction<Request>;
}

export interface MssqlDriver {
  readonly ConnectionPool: new (config: MssqlPoolConfig) => MssqlPool;
  readonly ISOLATION_LEVEL: { readonly READ_COMMITTED: number; readonly SERIALIZABLE: number };
  /** A bulk load's rows for the named (bracket-quoted) table. */
  readonly Table: new (name: string) => MssqlTable;
  /** The NVARCHAR(n) column type; with `MAX`, NVARCHAR(MAX). */
  readonly NVarChar: (length: number) => unknown;
  readonly MAX: number;
}

export type LoadMssqlDriver = () => Promise<MssqlDriver>;

/** Loads the real driver (CommonJS: its API sits on `default` under ESM). */
export async function loadMssqlDriver(): Promise<MssqlDriver> {
  const loaded = (await import('mssql')) as unknown as { default?: MssqlDriver } & MssqlDriver;
  return loaded.default ?? loaded;
}

/** Binds every own property of `params` as a named parameter. */
export function bind(request: MssqlRequest, params: Readonly<Record<string, unknown>>): MssqlRequest {
  for (const [name, value] of Object.entries(params)) request.input(name, value);
  return request;
}

/** SQL Server error numbers the connectors read; everything else is "unavailable" or "unknown". */
export const MSSQL_ERRORS = {
  /** Violation of PRIMARY KEY / UNIQUE constraint: a concurrent fence installer won. */
  uniqueViolation: new Set([2627, 2601]),
  /** "There is already an object named …": a concurrent table creator won. */
  objectExists: 2714,
  /** Chosen as deadlock victim: the server rolled the transaction back, nothing changed. */
  deadlock: 1205,
  /** "Invalid object name": the table (or its schema) does not exist. */
  invalidObject: 208,
} as const;

/** The server error number of a driver error, if it has one. */
export function mssqlErrorNumber(error: unknown): number | undefined {
  const candidate = error as { number?: unknown; originalError?: { info?: { number?: unknown } } } | null;
  const number = candidate?.number ?? candidate?.originalError?.info?.number;
  return typeof number === 'number' ? number : undefined;
}

/**
 * One connection pool, opened on first use and thrown away after any driver error: a timed-out or
 * reset connection is in an unknown protocol state (and the server rolls back whatever it left
 * open), so the next call starts afresh. Our own errors (e.g. FENCED) keep the pool.
 */
export class MssqlSession {
  readonly #config: MssqlPoolConfig;
  readonly #loadDriver: LoadMssqlDriver;
  #driver: MssqlDriver | null = null;
  #pool: Promise<MssqlPool> | null = null;

  constructor(config: MssqlPoolConfig, loadDriver: LoadMssqlDriver = loadMssqlDriver) {
    this.#config = config;
    this.#loadDriver = loadDriver;
  }

  /** Runs body with a connected pool and the driver's constants. */
  async use<T>(body: (pool: MssqlPool, driver: MssqlDriver) => Promise<T>): Promise<T> {
    try {
      const pool = await this.#connected();
      return await body(pool, this.#driver!);
    } catch (error) {
      if (!isDponeError(error)) this.discard();
      throw error;
    }
  }

  /** Drops the pool without waiting for the server (it may be unreachable). */
  discard(): void {
    const pool = this.#pool;
    this.#pool = null;
    void pool?.then((p) => p.close()).catch(() => undefined);
  }

  async close(): Promise<void> {
    const pool = this.#pool;
    this.#pool = null;
    if (!pool) return;
    await pool.then((p) => p.close()).catch(() => undefined);
  }

  #connected(): Promise<MssqlPool> {
    this.#pool ??= this.#open();
    return this.#pool;
  }

  async #open(): Promise<MssqlPool> {
    this.#driver ??= await this.#loadDriver();
    const pool = new this.#driver.ConnectionPool(this.#config);
    try {
      await pool.connect();
    } catch (error) {
      await pool.close().catch(() => undefined);
      throw error;
    }
    return pool;
  }
}
