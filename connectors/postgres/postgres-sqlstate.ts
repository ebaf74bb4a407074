import type { ErrorCode } from '../../src/contracts/errors.ts';
import type { ServerCause } from '../../src/contracts/error-causes.ts';
import { CAUSE_CODES } from '../../src/contracts/error-causes.ts';

/**
 * What a server's SQLSTATE (ISO SQL's five-character error class, as PostgreSQL reports it) says
 * about the cause of a failure (the shared causes: src/contracts/error-causes.ts). Only the class
 * and the code are read, never the server's message: the message may quote SQL or row values.
 *
 * - `authentication`: the login was refused (class 28). A retry with the same secret cannot help.
 * - `privilege`: the role lacks a privilege (42501), or the table refuses the write path for its
 *   policy: `COPY FROM not supported with row-level security` (0A000, feature_not_supported).
 * - `missing-object`: a database, schema, table, column or type named by the workload is absent.
 * - `data`: the server refused the data itself (class 22 data exception, 23 integrity violation —
 *   also 23514 `no partition of relation … found for row` —, 21 cardinality, 27 triggered data
 *   change, 44 WITH CHECK OPTION, P0 a trigger's RAISE, 2F/38/39 a routine's refusal, and the
 *   rest of class 42 but for 42601: the target's definition refuses the rows).
 * - `transient`: connection loss, serialization failure or deadlock, cancellation or timeout,
 *   resources, operator intervention (08, 40, 57, 53, 55P03, 58): a retry may succeed.
 * - `other`: nothing definite; callers keep their own (retry) code.
 */
export type SqlstateCause = ServerCause;

const MISSING_OBJECT = new Set(['3D000', '3F000', '42P01', '42703', '42704']);
const TRANSIENT_CLASSES = new Set(['08', '40', '53', '57', '58']);
/** Classes where the target refused the rows themselves: a retry of the same rows cannot help. */
const DATA_CLASSES = new Set(['21', '22', '23', '27', '2F', '38', '39', '44', 'P0']);
/** syntax_error: a statement of ours, a bug rather than the workload's fault (kept retryable). */
const OUR_SYNTAX = '42601';

/** A well-formed SQLSTATE: five digits or upper-case letters. */
export function isSqlstate(value: unknown): value is string {
  return typeof value === 'string' && /^[0-9A-Z]{5}$/.test(value);
}

/**
 * The SQLSTATE a server error carries, or undefined for client-side failures (refused, reset,
 * timed out). Drivers put it in `code` with a `severity` beside it (node-postgres' DatabaseError);
 * a Node errno such as EPIPE has five capitals too, but no severity.
 */
export function serverSqlstate(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, severity } = error as { code?: unknown; severity?: unknown };
  return typeof severity === 'string' && isSqlstate(code) ? code : undefined;
}

export function sqlstateCause(sqlstate: string): SqlstateCause {
  const kind = sqlstate.slice(0, 2);
  if (kind === '28') return 'authentication';
  if (sqlstate === '42501' || sqlstate === '0A000') return 'privilege';
  if (MISSING_OBJECT.has(sqlstate)) return 'missing-object';
  if (DATA_CLASSES.has(kind) || (kind === '42' && sqlstate !== OUR_SYNTAX)) return 'data';
  if (TRANSIENT_CLASSES.has(kind) || sqlstate === '55P03') return 'transient';
  return 'other';
}

/** The non-retry code a SQLSTATE maps to, or null when a retry may help or the class says nothing. */
export function nonRetryCodeOf(sqlstate: string): ErrorCode | null {
  const cause = sqlstateCause(sqlstate);
  return cause in CAUSE_CODES ? CAUSE_CODES[cause as keyof typeof CAUSE_CODES] : null;
}
