import { parseEndpointUrl, positiveIntParam, urlDatabase } from '../../../contracts/endpoint-url.ts';
import { invalidField } from '../../../contracts/errors.ts';
import { refusedSchema } from '../../../contracts/postgres-names.ts';

/** The slice of `pg`'s client configuration the connectors set. */
export interface PostgresClientConfig {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password?: string;
  readonly database: string;
  /** Client-side bound on connecting (a black-holed proxy must not hang a worker). */
  readonly connectionTimeoutMillis: number;
  /** Client-side bound on every query; the server gets the same as statement/lock timeout. */
  readonly query_timeout: number;
  readonly statement_timeout: number;
  readonly lock_timeout: number;
  readonly application_name: string;
  /**
   * Startup `-c` settings: the pinned text forms (SESSION_SETTINGS) and, when the URL names
   * `?schema=`, `search_path=<schema>`. Startup settings win over `ALTER ROLE/DATABASE … SET`.
   */
  readonly options: string;
  readonly keepAlive: boolean;
}

export const DEFAULT_TIMEOUTS = { connectTimeoutMs: 5000, queryTimeoutMs: 10_000 } as const;

/**
 * Every setting that changes how a value is written as text, pinned on source and target alike, so
 * a value leaves the source and enters the target in one canonical form whatever a role or
 * database sets (`ALTER ROLE … SET DateStyle='SQL, DMY'` would otherwise turn 2026-07-05 into
 * 05/07/2026, which a target with MDY reads as May 7; extra_float_digits=0 drops float digits).
 * ISO dates, UTC instants, shortest-exact floats, hex bytea, C money and postgres intervals all
 * read back to the same value.
 */
export const SESSION_SETTINGS: Readonly<Record<string, string>> = {
  DateStyle: 'ISO,MDY',
  IntervalStyle: 'postgres',
  extra_float_digits: '3',
  TimeZone: 'UTC',
  bytea_output: 'hex',
  lc_monetary: 'C',
  xmloption: 'content',
};

const PINNED = Object.entries(SESSION_SETTINGS).map(([name, value]) => `-c ${name}=${value}`);

/**
 * Reads `postgres://user[:password]@host:port/database?connect_timeout_ms=&query_timeout_ms=&schema=`.
 * A password passed in (from the environment variable the workload names) wins over the URL's.
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
    statement_timeout: queryTimeout,
    lock_timeout: queryTimeout,
    application_name: applicationName,
    keepAlive: true,
    options: [...searchPath(q.get('schema'), field), ...PINNED].join(' '),
  };
}

/** `?schema=name` → the connection's search_path; a plain lower-case identifier, not a system schema. */
function searchPath(schema: string | null, field: string): string[] {
  if (schema === null) return [];
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema))
    throw invalidField(field, 'has a bad schema (lower-case letters, digits, _)');
  const refused = refusedSchema(schema);
  if (refused) throw invalidField(field, `names ?schema=${schema}: ${refused}`);
  return [`-c search_path=${schema}`];
}

/** Quotes a table name, optionally schema-qualified (`schema.table`), as PostgreSQL identifiers. */
export function quoteTable(name: string): string {
  return name.split('.').map(quoteIdentifier).join('.');
}

export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
