import { parseEndpointUrl, positiveIntParam, urlDatabase } from '../../src/contracts/endpoint-url.ts';
import { invalidField } from '../../src/contracts/errors.ts';
import { refusedSchema } from './postgres-names.ts';
import type { DurableCommitLevel, PinnedSettings } from './postgres-settings.ts';
import { DURABLE_COMMIT_LEVELS } from './postgres-settings.ts';

/** The slice of `pg`'s client configuration the connectors set, and what each transaction pins. */
export interface PostgresClientConfig {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password?: string;
  readonly database: string;
  /** Client-side bound on connecting (a black-holed proxy must not hang a worker). */
  readonly connectionTimeoutMillis: number;
  /** Client-side bound on every query; the server gets the same as statement/lock timeout (SET LOCAL). */
  readonly query_timeout: number;
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
 * Reads `postgres://user[:password]@host:port/database?connect_timeout_ms=&query_timeout_ms=&schema=&synchronous_commit=`.
 * A password passed in (from the environment variable the workload names) wins over the URL's.
 * `synchronous_commit` (default `on`; `remote_write`, `remote_apply` for replica-durable commits)
 * is what every writing transaction sets locally, whatever the server's default.
 */
export function parsePostgresUrl(
  url: string,
  password: string | undefined,
  field: string,
  applicationName: string,
): PostgresClientConfig {
  const parsed = parseEndpointUrl(url, field, ['postgres:', 'postgresql:'], 'a postgres:// URL');
  const database = urlDatabase(parsed);
  if (!parsed.hostname || !database) throw invalidField(field, 'needs a host and a database');
  const q = parsed.searchParams;
  const queryTimeout = positiveIntParam(q, 'query_timeout_ms', DEFAULT_TIMEOUTS.queryTimeoutMs, field);
  const secret = password ?? (parsed.password ? decodeURIComponent(parsed.password) : undefined);
  const schema = searchPath(q.get('schema'), field);
  return {
    host: parsed.hostname,
    port: parsed.port ? Number(parsed.port) : 5432,
    user: decodeURIComponent(parsed.username || 'postgres'),
    ...(secret !== undefined ? { password: secret } : {}),
    database,
    connectionTimeoutMillis: positiveIntParam(
      q,
      'connect_timeout_ms',
      DEFAULT_TIMEOUTS.connectTimeoutMs,
      field,
    ),
    query_timeout: queryTimeout,
    application_name: applicationName,
    keepAlive: true,
    pinned: {
      field,
      timeoutMs: queryTimeout,
      values: true,
      durableCommit: durableCommit(q.get('synchronous_commit'), field),
      ...(schema !== undefined ? { searchPath: schema } : {}),
    },
  };
}

/** `?synchronous_commit=`: on (default), remote_write or remote_apply; never off or local. */
export function durableCommit(value: string | null, field: string): DurableCommitLevel {
  if (value === null) return 'on';
  if ((DURABLE_COMMIT_LEVELS as readonly string[]).includes(value)) return value as DurableCommitLevel;
  throw invalidField(
    field,
    'has a bad synchronous_commit: an acknowledged commit must be durable (on, remote_write or remote_apply)',
  );
}

/** `?schema=name` → each transaction's search_path; a plain lower-case identifier, not a system schema. */
function searchPath(schema: string | null, field: string): string | undefined {
  if (schema === null) return undefined;
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema))
    throw invalidField(field, 'has a bad schema (lower-case letters, digits, _)');
  const refused = refusedSchema(schema);
  if (refused) throw invalidField(field, `names ?schema=${schema}: ${refused}`);
  return schema;
}

/** Quotes a table name, optionally schema-qualified (`schema.table`), as PostgreSQL identifiers. */
export function quoteTable(name: string): string {
  return name.split('.').map(quoteIdentifier).join('.');
}

export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
