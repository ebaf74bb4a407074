import { createHash } from 'node:crypto';
import { parseEndpointUrl, positiveIntParam, urlDatabase } from '../../src/contracts/endpoint-url.ts';
import { invalidField } from '../../src/contracts/errors.ts';

/** What the connectors need to reach one ClickHouse database over HTTP. */
export interface ClickHouseEndpoint {
  /** `http://host:port`, never with credentials in it. */
  readonly httpUrl: string;
  readonly database: string;
  readonly username: string;
  readonly password: string;
  /** Client-side bound on every request (a black-holed server must not hang a worker). */
  readonly requestTimeoutMs: number;
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 15_000;

/** The hidden generation columns every target row carries: which operation and epoch attached it. */
export const OP_COLUMN = '_dpone_op';
export const EPOCH_COLUMN = '_dpone_epoch';

/** The single column of a tombstone: a table that occupies a sealed staging name. */
export const TOMBSTONE_COLUMN = '_dpone_sealed';

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Reads `clickhouse://user@host:port/database?request_timeout_ms=N` (HTTP interface, port 8123 by
 * default). A password passed in (from the environment variable the workload names) wins over the
 * URL's; the returned `httpUrl` never carries one.
 */
export function parseClickHouseUrl(
  url: string,
  password: string | undefined,
  field: string,
): ClickHouseEndpoint {
  const parsed = parseEndpointUrl(url, field, ['clickhouse:'], 'a clickhouse:// URL');
  const database = urlDatabase(parsed) || 'default';
  if (!parsed.hostname) throw invalidField(field, 'needs a host');
  if (!IDENT.test(database)) throw invalidField(field, 'names a bad database (letters, digits, _)');
  const requestTimeoutMs = positiveIntParam(
    parsed.searchParams,
    'request_timeout_ms',
    DEFAULT_REQUEST_TIMEOUT_MS,
    field,
  );
  const host = parsed.hostname.includes(':')
    ? `[${parsed.hostname.replace(/^\[|\]$/g, '')}]`
    : parsed.hostname;
  return {
    httpUrl: `http://${host}:${parsed.port || '8123'}`,
    database,
    username: decodeURIComponent(parsed.username || 'default'),
    password: password ?? (parsed.password ? decodeURIComponent(parsed.password) : ''),
    requestTimeoutMs,
  };
}

/**
 * Where a ClickHouse target's fence log lives (a safe identity): `_dpone_fence` in the URL's
 * database, the one the connection uses by default.
 */
export function clickHouseFenceLocation(url: string, field: string): string {
  return `clickhouse:${parseClickHouseUrl(url, undefined, field).database}._dpone_fence`;
}

/** A table name, `table` or `database.table`, each part a plain identifier. */
export function checkTableName(name: string, field: string): void {
  if (!name.split('.').every((part) => IDENT.test(part)) || name.split('.').length > 2)
    throw invalidField(field, 'must be table or database.table (letters, digits, _)');
}

/** Back-quotes an identifier (or `db.table`) for ClickHouse. */
export function quoteName(name: string): string {
  return name
    .split('.')
    .map((part) => `\`${part.replaceAll('\\', '\\\\').replaceAll('`', '\\`')}\``)
    .join('.');
}

/** A ClickHouse string literal: backslash and quote escaped (18.16 has no query parameters). */
export function quoteString(value: string): string {
  return `'${value.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}

/** Splits `db.table` into its database (or the connection's) and table. */
export function splitTable(name: string, database: string): { database: string; table: string } {
  const parts = name.split('.');
  return parts.length === 2 ? { database: parts[0]!, table: parts[1]! } : { database, table: parts[0]! };
}

/** 16 hex digits of sha256(operation id): short, fixed-width and safe in a table name. */
export function operationTag(operationId: string): string {
  return createHash('sha256').update(operationId, 'utf8').digest('hex').slice(0, 16);
}

/** Prefix shared by every staging table (and tombstone) of one operation. */
export function stagingPrefix(operationId: string): string {
  return `_dpone_stage_${operationTag(operationId)}_`;
}

/** The staging table of one operation under one epoch: deterministic, so a new holder can seal it. */
export function stagingTableName(operationId: string, epoch: number): string {
  return `${stagingPrefix(operationId)}${epoch}`;
}

/** The epoch a staging table name carries, or null when the name is not one of ours. */
export function stagingEpoch(name: string, operationId: string): number | null {
  const prefix = stagingPrefix(operationId);
  if (!name.startsWith(prefix)) return null;
  const rest = name.slice(prefix.length);
  return /^\d+$/.test(rest) ? Number(rest) : null;
}

/** The server's numeric error code from a driver error (18.16 writes `Code: 57, e.displayText() ...`). */
export function clickHouseErrorCode(error: unknown): number | null {
  if (typeof error !== 'object' || error === null) return null;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && /^\d+$/.test(code)) return Number(code);
  const match = typeof message === 'string' ? /Code: (\d+)/.exec(message) : null;
  return match ? Number(match[1]) : null;
}

/** Server error codes the protocol branches on. */
export const CH_ERRORS = {
  TABLE_ALREADY_EXISTS: 57,
  UNKNOWN_TABLE: 60,
} as const;
