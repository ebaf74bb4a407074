import type { ErrorCode } from './errors.ts';
import { ERROR_CODES } from './errors.ts';

/**
 * Why a server refused, in the words every engine's error reading shares (each engine maps its own
 * error classes onto them in its folder, connectors/<engine>/, e.g. a SQLSTATE table). Only the
 * class is read, never the server's message.
 *
 * - `authentication`: the login was refused. A retry with the same secret cannot help.
 * - `privilege`: the role lacks a privilege, or the table refuses the write path for its policy.
 * - `missing-object`: a database, schema, table, column or type named by the workload is absent.
 * - `data`: the server refused the data itself (the target's definition refuses the rows).
 * - `transient`: connection loss, serialization failure or deadlock, cancellation or timeout,
 *   resources, operator intervention: a retry may succeed.
 * - `other`: nothing definite; callers keep their own (retry) code.
 */
export type ServerCause = 'authentication' | 'privilege' | 'missing-object' | 'data' | 'transient' | 'other';

/** The error code of each cause a retry cannot fix. */
export const CAUSE_CODES = {
  authentication: ERROR_CODES.AUTHENTICATION_FAILED,
  privilege: ERROR_CODES.PERMISSION_DENIED,
  'missing-object': ERROR_CODES.OBJECT_NOT_FOUND,
  data: ERROR_CODES.DATA_REJECTED,
} as const satisfies Partial<Record<ServerCause, ErrorCode>>;

/** Codes that name a cause a retry cannot fix: the workload, the grants or the data must change. */
export const NON_RETRY_CAUSE_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>(Object.values(CAUSE_CODES));
