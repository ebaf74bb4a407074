import { DponeError, ERROR_CODES } from '../../../contracts/errors.ts';

/** The slice of `pg`'s pool configuration this adapter sets. */
export interface PostgresJournalConfig {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password?: string;
  readonly database: string;
  /** Client-side: how long a connect may take before the journal is "unavailable". */
  readonly connectionTimeoutMillis: number;
  /** Client-side: a query (or a black-holed connection) gives up after this. */
  readonly query_timeout: number;
  /** Server-side: the same bound, so the server also abandons a stuck statement. */
  readonly statement_timeout: number;
  readonly lock_timeout: number;
  readonly max: number;
  readonly application_name: string;
  /** `-c search_path=<schema>` when the URL names `?schema=` (one schema per tenant or test cell). */
  readonly options?: string;
}

const DEFAULTS = { connectTimeoutMs: 5000, queryTimeoutMs: 10_000 };

function bad(why: string): DponeError {
  // The URL is never echoed: it may carry a password.
  return new DponeError(ERROR_CODES.INVALID_INPUT, `the PostgreSQL journal URL ${why}`, {
    field: '--journal',
  });
}

function positiveInt(value: string | null, fallback: number, name: string): number {
  if (value === null) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw bad(`has a bad ${name}`);
  return n;
}

/**
 * Reads `postgres://user[:password]@host:port/database?connect_timeout_ms=&query_timeout_ms=&schema=`.
 * The password argument (from the environment) wins over one in the URL.
 */
export function parseJournalUrl(url: string, password?: string): PostgresJournalConfig {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw bad('is not a URL');
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') throw bad('is not postgres://');
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
  if (!parsed.hostname || !database) throw bad('needs a host and a database');
  const query = parsed.searchParams;
  const queryTimeout = positiveInt(
    query.get('query_timeout_ms'),
    DEFAULTS.queryTimeoutMs,
    'query_timeout_ms',
  );
  const inUrl = parsed.password ? decodeURIComponent(parsed.password) : undefined;
  const secret = password ?? inUrl;
  return {
    host: parsed.hostname,
    port: parsed.port ? Number(parsed.port) : 5432,
    user: decodeURIComponent(parsed.username || 'postgres'),
    ...(secret !== undefined ? { password: secret } : {}),
    database,
    connectionTimeoutMillis: positiveInt(
      query.get('connect_timeout_ms'),
      DEFAULTS.connectTimeoutMs,
      'connect_timeout_ms',
    ),
    query_timeout: queryTimeout,
    statement_timeout: queryTimeout,
    lock_timeout: queryTimeout,
    max: 4,
    application_name: 'dpone-journal',
    ...searchPath(query.get('schema')),
  };
}

/** `?schema=name` → the connection's search_path; a plain lower-case identifier only. */
function searchPath(schema: string | null): { options?: string } {
  if (schema === null) return {};
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw bad('has a bad schema (lower-case letters, digits, _)');
  return { options: `-c search_path=${schema}` };
}
