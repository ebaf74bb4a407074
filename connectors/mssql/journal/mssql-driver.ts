import { DponeError, ERROR_CODES } from '../../../src/contracts/errors.ts';

import type {
  MssqlQueryRequest,
  MssqlPool as SessionPool,
  MssqlTransaction as SessionTransaction,
} from '../mssql-session.ts';

/**
 * The slice of the `mssql` driver the journal uses: the connectors' slice (../mssql-session.ts)
 * without bulk loads, so unit tests hand the journal a small fake of exactly this surface; the real
 * driver is loaded only when an `mssql://` journal is opened. The error numbers and how a driver
 * error carries its number are the connectors' too.
 */
export type { MssqlResult } from '../mssql-session.ts';
export { MSSQL_ERRORS, mssqlErrorNumber } from '../mssql-session.ts';
export type MssqlRequest = MssqlQueryRequest;
export type MssqlTransaction = SessionTransaction<MssqlQueryRequest>;
export type MssqlPool = SessionPool<MssqlQueryRequest>;

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
