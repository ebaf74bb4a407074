import { DponeError, ERROR_CODES } from '../../../src/contracts/errors.ts';
import type { DurableCommitLevel, PinnedSettings } from '../postgres-settings.ts';
import { DURABLE_COMMIT_LEVELS } from '../postgres-settings.ts';

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
  readonly max: number;
  readonly application_name: string;
}

/**
 * What the adapter does beside the pool: nothing of it goes in the startup packet (a pooler
 * refuses or drops startup parameters); the SQL names the schema, transactions pin their settings.
 */
export interface JournalSessionConfig {
  readonly pool: PostgresJournalConfig;
  /** `?schema=` (one schema per tenant or test cell): every statement names it. */
  readonly schema?: string;
  /** statement_timeout / lock_timeout, synchronous_commit: SET LOCAL in each journal transaction. */
  readonly pinned: PinnedSettings;
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
export function parseJournalUrl(url: string, password?: string): JournalSessionConfig {
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
  const schema = searchPath(query.get('schema'));
  const pool: PostgresJournalConfig = {
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
    max: 4,
    application_name: 'dpone-journal',
  };
  return {
    pool,
    ...(schema !== undefined ? { schema } : {}),
    pinned: {
      field: '--journal',
      timeoutMs: queryTimeout,
      values: false,
      durableCommit: durableCommit(query.get('synchronous_commit')),
    },
  };
}

/** `?synchronous_commit=`: on (default), remote_write or remote_apply; never off or local. */
function durableCommit(value: string | null): DurableCommitLevel {
  if (value === null) return 'on';
  if ((DURABLE_COMMIT_LEVELS as readonly string[]).includes(value)) return value as DurableCommitLevel;
  throw bad(
    'has a bad synchronous_commit (on, remote_write or remote_apply: a journal write must be durable)',
  );
}

/** `?schema=name` → the schema every statement names; a plain lower-case identifier only. */
function searchPath(schema: string | null): string | undefined {
  if (schema === null) return undefined;
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw bad('has a bad schema (lower-case letters, digits, _)');
  return schema;
}
