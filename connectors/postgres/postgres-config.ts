import {
  parseEndpointUrl,
  positiveIntParam,
  refusedUrl,
  urlDatabase,
} from '../../src/contracts/endpoint-url.ts';
import { refusedSchema } from './postgres-names.ts';
import type { DurableCommitLevel, PinnedSettings } from './postgres-settings.ts';
import { DURABLE_COMMIT_LEVELS } from './postgres-settings.ts';

/** What the connectors' and the journal's `pg` configurations share: the login and the client-side bounds. */
export interface PostgresConnection {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password?: string;
  readonly database: string;
  /** Client-side bound on connecting (a black-holed proxy must not hang a worker). */
  readonly connectionTimeoutMillis: number;
  /** Client-side bound on every query; the server gets the same as statement/lock timeout (SET LOCAL). */
  readonly query_timeout: number;
}

/** The slice of `pg`'s client configuration the connectors set, and what each transaction pins. */
export interface PostgresClientConfig extends PostgresConnection {
  readonly application_name: string;
  readonly keepAlive: boolean;
  /**
   * What every transaction SETs LOCAL and reads back (postgres-settings.ts). Never sent as startup
   * parameters: a pooler refuses them or drops them silently.
   */
  readonly pinned: PinnedSettings;
}

export const DEFAULT_TIMEOUTS = { connectTimeoutMs: 5000, queryTimeoutMs: 10_000 } as const;

/**
 * How a reader of a postgres:// URL words its refusals (the connectors and the journal read the same
 * URL and say it differently): each is INVALID_INPUT naming `field` and never echoes the URL.
 */
export interface PostgresUrlWords {
  readonly field: string;
  /** What every refusal begins with: the field itself unless given. */
  readonly subject?: string;
  /** What a URL of another scheme is said not to be (`a postgres:// URL`). */
  readonly scheme: string;
  /** What follows `has a bad synchronous_commit` for one that acknowledges before it is durable. */
  readonly notDurable: string;
  /** Why a well-formed `?schema=` is refused anyway (null: it is not), if the reader refuses some. */
  readonly refusedSchema?: (schema: string) => string | null;
}

/** What a postgres:// URL names, for the connectors and the journal alike. */
export interface PostgresEndpoint {
  readonly connection: PostgresConnection;
  /** `?schema=`: a plain lower-case identifier. */
  readonly schema?: string;
  /** `?synchronous_commit=`: on (default), remote_write or remote_apply. */
  readonly durableCommit: DurableCommitLevel;
}

/**
 * Reads `postgres://user[:password]@host:port/database?connect_timeout_ms=&query_timeout_ms=&schema=&synchronous_commit=`,
 * each refusal in the reader's `words`. A password passed in (from the environment) wins over the URL's.
 */
export function readPostgresUrl(
  url: string,
  password: string | undefined,
  words: PostgresUrlWords,
): PostgresEndpoint {
  const { field, subject = field } = words;
  const parsed = parseEndpointUrl(url, field, ['postgres:', 'postgresql:'], words.scheme, subject);
  const database = urlDatabase(parsed);
  if (!parsed.hostname || !database) throw refusedUrl(field, 'needs a host and a database', subject);
  const q = parsed.searchParams;
  const timeout = (name: string, fallback: number) => positiveIntParam(q, name, fallback, field, subject);
  const queryTimeout = timeout('query_timeout_ms', DEFAULT_TIMEOUTS.queryTimeoutMs);
  const secret = password ?? (parsed.password ? decodeURIComponent(parsed.password) : undefined);
  const schema = searchPath(q.get('schema'), words);
  return {
    connection: {
      host: parsed.hostname,
      port: parsed.port ? Number(parsed.port) : 5432,
      user: decodeURIComponent(parsed.username || 'postgres'),
      ...(secret !== undefined ? { password: secret } : {}),
      database,
      connectionTimeoutMillis: timeout('connect_timeout_ms', DEFAULT_TIMEOUTS.connectTimeoutMs),
      query_timeout: queryTimeout,
    },
    ...(schema !== undefined ? { schema } : {}),
    durableCommit: durableCommit(q.get('synchronous_commit'), words),
  };
}

/**
 * A connector's URL in `field` (e.g. `target.url`), refusals worded by the field.
 * `synchronous_commit` (default `on`; `remote_write`, `remote_apply` for replica-durable commits)
 * is what every writing transaction sets locally, whatever the server's default; `?schema=` is each
 * transaction's search_path, never a system schema.
 */
export function parsePostgresUrl(
  url: string,
  password: string | undefined,
  field: string,
  applicationName: string,
): PostgresClientConfig {
  const { connection, schema, durableCommit } = readPostgresUrl(url, password, {
    field,
    scheme: 'a postgres:// URL',
    notDurable: ': an acknowledged commit must be durable (on, remote_write or remote_apply)',
    refusedSchema,
  });
  return {
    ...connection,
    application_name: applicationName,
    keepAlive: true,
    pinned: {
      field,
      timeoutMs: connection.query_timeout,
      values: true,
      durableCommit,
      ...(schema !== undefined ? { searchPath: schema } : {}),
    },
  };
}

/** `?synchronous_commit=`: on (default), remote_write or remote_apply; never off or local. */
function durableCommit(value: string | null, words: PostgresUrlWords): DurableCommitLevel {
  if (value === null) return 'on';
  if ((DURABLE_COMMIT_LEVELS as readonly string[]).includes(value)) return value as DurableCommitLevel;
  throw refusedUrl(words.field, `has a bad synchronous_commit${words.notDurable}`, words.subject);
}

/** `?schema=name`: a plain lower-case identifier, and not one the reader refuses. */
function searchPath(schema: string | null, words: PostgresUrlWords): string | undefined {
  if (schema === null) return undefined;
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema))
    throw refusedUrl(words.field, 'has a bad schema (lower-case letters, digits, _)', words.subject);
  const refused = words.refusedSchema?.(schema);
  if (refused) throw refusedUrl(words.field, `names ?schema=${schema}: ${refused}`, words.subject);
  return schema;
}

/** Quotes a table name, optionally schema-qualified (`schema.table`), as PostgreSQL identifiers. */
export function quoteTable(name: string): string {
  return name.split('.').map(quoteIdentifier).join('.');
}

export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
