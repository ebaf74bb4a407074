import { DponeError, ERROR_CODES } from '../../../src/contracts/errors.ts';

/**
 * The slice of the `mssql` driver the journal uses, typed here rather than taken from the driver's
 * own types (kysely-style): unit tests hand the adapter a small fake of exactly this surface, and
 * the real driver is loaded only when an `mssql://` journal is opened.
 */
export interface MssqlResult {
  readonly recordset?: readonly Record<string, unknown>[];
  readonly rowsAffected: readonly number[];
}

export interface MssqlRequest {
  /** Binds a named parameter (`@name`); the driver infers the SQL type from the JS value. */
  input(name: string, value: unknown): MssqlRequest;
  query(text: string): Promise<MssqlResult>;
}

export interface MssqlTransaction {
  begin(isolationLevel?: number): Promise<unknown>;
  commit(): Promise<void>;
  rollback(): Promise<void>;
  request(): MssqlRequest;
}

export interface MssqlPool {
  connect(): Promise<unknown>;
  close(): Promise<unknown>;
  request(): MssqlRequest;
  transaction(): MssqlTransaction;
}

export interface MssqlPoolConfig {
  readonly server: string;
  readonly port?: number;
  readonly database?: string;
  readonly user?: string;
  readonly password?: string;
  readonly connectionTimeout?: number;
  readonly requestTimeout?: number;
  readonly pool?: { readonly max?: number; readonly min?: number };
  readonly options: {
    readonly encrypt: boolean;
    readonly trustServerCertificate: boolean;
    readonly instanceName?: string;
  };
}

export interface MssqlDriver {
  readonly ConnectionPool: new (config: MssqlPoolConfig) => MssqlPool;
  readonly ISOLATION_LEVEL: { readonly READ_COMMITTED: number; readonly SERIALIZABLE: number };
}

/** Loads the real driver. A missing driver means the journal cannot be reached. */
export async function loadMssqlDriver(): Promise<MssqlDriver> {
  try {
    const loaded = (await import('mssql')) as unknown as { default?: MssqlDriver } & MssqlDriver;
    return loaded.default ?? loaded;
  } catch (error) {
    throw new DponeError(
      ERROR_CODES.JOURNAL_UNAVAILABLE,
      'the mssql driver could not be loaded',
      {},
      { cause: error },
    );
  }
}

/** SQL Server error numbers the adapter reads; everything else is "unavailable". */
export const MSSQL_ERRORS = {
  /** Violation of PRIMARY KEY / UNIQUE constraint: a concurrent creator won. */
  uniqueViolation: new Set([2627, 2601]),
  /** "There is already an object named …": a concurrent schema creator won. */
  objectExists: 2714,
  /** Chosen as deadlock victim: the transaction rolled back, nothing changed. */
  deadlock: 1205,
} as const;

/** The server error number of a driver error, if it has one. */
export function mssqlErrorNumber(error: unknown): number | undefined {
  const candidate = error as { number?: unknown; originalError?: { info?: { number?: unknown } } } | null;
  const number = candidate?.number ?? candidate?.originalError?.info?.number;
  return typeof number === 'number' ? number : undefined;
}
