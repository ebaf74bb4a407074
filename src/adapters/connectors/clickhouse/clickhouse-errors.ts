import type { ErrorCode } from '../../../contracts/errors.ts';
import { DponeError, ERROR_CODES } from '../../../contracts/errors.ts';
import { clickHouseErrorCode } from './clickhouse-config.ts';

/**
 * What a ClickHouse server error code says about its cause. Only the number is read, never the
 * message: it quotes SQL and row values (and 18.16's parse diagnostics do not reliably say which
 * column was at fault, so none is named). Codes from 18.16 and from current releases:
 * - authentication: UNKNOWN_USER 192, WRONG_PASSWORD 193, REQUIRED_PASSWORD 194,
 *   AUTHENTICATION_FAILED 516;
 * - privilege: READONLY 164, ACCESS_DENIED 497;
 * - missing object: UNKNOWN_DATABASE 81, UNKNOWN_TABLE 60, NO_SUCH_COLUMN_IN_TABLE 16;
 * - data: the server could not take a value (parse errors, type mismatch, out of range, NULL
 *   into a non-Nullable column, too large a string for a FixedString).
 * Anything else (connection loss, timeouts, TOO_MANY_SIMULTANEOUS_QUERIES, MEMORY_LIMIT_EXCEEDED,
 * a server shutting down) keeps the caller's retry code.
 */
const AUTHENTICATION = new Set([192, 193, 194, 516]);
const PRIVILEGE = new Set([164, 497]);
const MISSING = new Set([16, 60, 81]);
const DATA = new Set([6, 26, 27, 32, 38, 41, 53, 69, 70, 72, 117, 131, 321, 349, 377]);

export type ClickHouseCause = 'authentication' | 'privilege' | 'missing-object' | 'data';

export function clickHouseCause(code: number): ClickHouseCause | null {
  if (AUTHENTICATION.has(code)) return 'authentication';
  if (PRIVILEGE.has(code)) return 'privilege';
  if (MISSING.has(code)) return 'missing-object';
  if (DATA.has(code)) return 'data';
  return null;
}

const CAUSES: Readonly<Record<ClickHouseCause, { code: ErrorCode; text: string; hint: string }>> = {
  authentication: {
    code: ERROR_CODES.AUTHENTICATION_FAILED,
    text: 'the ClickHouse server refused the credentials',
    hint: 'check the user in the URL and the variable password_env names; a retry with the same secret cannot succeed',
  },
  privilege: {
    code: ERROR_CODES.PERMISSION_DENIED,
    text: 'the ClickHouse user may not do what the protocol needs',
    hint: 'the user needs a writable (not readonly) profile with CREATE TABLE, DROP TABLE, INSERT, SELECT and ALTER on the target database',
  },
  'missing-object': {
    code: ERROR_CODES.OBJECT_NOT_FOUND,
    text: 'the ClickHouse database, table or column the workload names does not exist',
    hint: 'create the database first (the connector creates only the fence table and, when absent, the target table)',
  },
  data: {
    code: ERROR_CODES.DATA_REJECTED,
    text: 'the ClickHouse target refused a value',
    hint: 'make the source values fit the target column types; nothing was attached',
  },
};

/**
 * A DponeError with the cause's non-retry code when the driver error carries one of the codes
 * above; null otherwise (the caller keeps its own code). The server code is named, its message
 * never copied (it stays `cause`).
 */
export function classifyClickHouseError(
  error: unknown,
  fields: { readonly operationId?: string; readonly field?: string } = {},
): DponeError | null {
  const code = clickHouseErrorCode(error);
  const cause = code === null ? null : clickHouseCause(code);
  if (code === null || cause === null) return null;
  const { code: dpone, text, hint } = CAUSES[cause];
  return new DponeError(dpone, `${text} (server code ${code})`, { ...fields, hint }, { cause: error });
}
