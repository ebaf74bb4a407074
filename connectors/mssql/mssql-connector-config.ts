import { parseEndpointUrl, positiveIntParam, urlDatabase } from '../../src/contracts/endpoint-url.ts';
import { invalidField } from '../../src/contracts/errors.ts';

/** The slice of the `mssql` driver's pool configuration the connectors set (kysely-style). */
export interface MssqlPoolConfig {
  readonly server: string;
  readonly port?: number;
  readonly database: string;
  readonly user?: string;
  readonly password?: string;
  /** Client-side bound on connecting (a black-holed proxy must not hang a worker). */
  readonly connectionTimeout: number;
  /** Client-side bound on every request; the driver cancels the request on the server after it. */
  readonly requestTimeout: number;
  readonly pool: { readonly max: number; readonly min: number };
  readonly options: {
    readonly encrypt: boolean;
    readonly trustServerCertificate: boolean;
    readonly appName: string;
    readonly instanceName?: string;
  };
}

export const DEFAULT_TIMEOUTS = { connectTimeoutMs: 5000, queryTimeoutMs: 15_000 } as const;

const TRUE = new Set(['1', 'true', 'yes']);
const FALSE = new Set(['0', 'false', 'no']);
const SECRET_PARAMS = /^(password|pwd|pass|passwd|secret|token)$/i;

function flag(q: URLSearchParams, name: string, fallback: boolean, field: string): boolean {
  const value = q.get(name)?.toLowerCase();
  if (value === undefined) return fallback;
  if (TRUE.has(value)) return true;
  if (FALSE.has(value)) return false;
  throw invalidField(field, `has a bad ${name} (true or false)`);
}

/**
 * Reads `mssql://user@host[:port]/database?encrypt=&trustServerCertificate=&instanceName=
 * &connect_timeout_ms=&query_timeout_ms=` (also `sqlserver://`). The password comes only from the
 * environment variable the workload names (`password`): a URL that carries one is refused, so no
 * secret sits in a workload file or on a command line. TLS is on (`encrypt=true`) unless the URL
 * turns it off.
 */
export function parseMssqlConnectorUrl(
  text: string,
  password: string | undefined,
  field: string,
  appName: string,
): MssqlPoolConfig {
  const url = parseEndpointUrl(text, field, ['mssql:', 'sqlserver:'], 'an mssql:// URL');
  const q = url.searchParams;
  if (url.password !== '' || [...q.keys()].some((key) => SECRET_PARAMS.test(key))) {
    throw invalidField(field, 'must not carry a password: name the variable that holds it in password_env');
  }
  const database = urlDatabase(url);
  if (url.hostname === '' || database === '' || database.includes('/'))
    throw invalidField(field, 'needs a host and a database (mssql://user@host:port/database)');
  const port = url.port === '' ? undefined : Number(url.port);
  const instanceName = q.get('instanceName') ?? undefined;
  const queryTimeout = positiveIntParam(q, 'query_timeout_ms', DEFAULT_TIMEOUTS.queryTimeoutMs, field);
  return {
    server: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    ...(port !== undefined ? { port } : {}),
    database,
    ...(url.username !== '' ? { user: decodeURIComponent(url.username) } : {}),
    ...(password !== undefined ? { password } : {}),
    connectionTimeout: positiveIntParam(q, 'connect_timeout_ms', DEFAULT_TIMEOUTS.connectTimeoutMs, field),
    requestTimeout: queryTimeout,
    // One connection does all the work of a target; a second lets a close overlap a reconnect.
    pool: { max: 2, min: 0 },
    options: {
      encrypt: flag(q, 'encrypt', true, field),
      trustServerCertificate: flag(q, 'trustServerCertificate', false, field),
      appName,
      ...(instanceName !== undefined ? { instanceName } : {}),
    },
  };
}

/**
 * The URL with its user and any secret-looking parameter replaced by `***`, for a log line or a
 * report that must say which server was meant. Text that does not parse is replaced whole.
 */
export function redactMssqlUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'mssql://***';
  }
  if (url.username !== '') url.username = '***';
  if (url.password !== '') url.password = '***';
  for (const key of [...url.searchParams.keys()]) {
    if (SECRET_PARAMS.test(key)) url.searchParams.set(key, '***');
  }
  return url.toString().replace(/%2A%2A%2A/g, '***');
}

/** Quotes one T-SQL identifier: `[name]`, with `]` doubled. */
export function quoteIdentifier(name: string): string {
  if (name === '' || name.length > 128) throw invalidField('identifier', 'must be 1 to 128 characters');
  return `[${name.replaceAll(']', ']]')}]`;
}

/** Quotes a table name, optionally schema-qualified (`schema.table`), as T-SQL identifiers. */
export function quoteTable(name: string): string {
  return name.split('.').map(quoteIdentifier).join('.');
}
