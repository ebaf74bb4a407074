/**
 * Error families of the target-commit protocol. Every error the runtime or the harness raises on
 * purpose carries one of these codes; the CLI maps codes to exit codes through EXIT_CODES alone.
 * Errors carry safe identities only: never SQL, credentials, rows, Vault paths or signed URLs.
 */
export const ERROR_CODES = {
  INTENT_CONFLICT: 'DPONE_TARGET_COMMIT_INTENT_CONFLICT',
  JOURNAL_UNAVAILABLE: 'DPONE_TARGET_COMMIT_JOURNAL_UNAVAILABLE',
  FENCE_UNAVAILABLE: 'DPONE_TARGET_COMMIT_FENCE_UNAVAILABLE',
  COMMIT_UNKNOWN: 'DPONE_TARGET_COMMIT_UNKNOWN',
  COMMITTED_INCOMPLETE: 'DPONE_TARGET_COMMITTED_INCOMPLETE',
  RECOVERY_CONFLICT: 'DPONE_TARGET_COMMIT_RECOVERY_CONFLICT',
  /** A compare-and-set lost: the entry changed (version, state or lease) since it was read. */
  CAS_CONFLICT: 'DPONE_TARGET_COMMIT_CAS_CONFLICT',
  /** The target fence carries a newer lease epoch than the writer: a zombie was stopped. */
  FENCED: 'DPONE_TARGET_COMMIT_FENCED',
  /**
   * This attempt's write committed — the target fence proves it, at this attempt's epoch — but
   * another executor took the journal over before this one could record it. Never a second
   * write: the journal's holder (or a retry) records the commit from the fence without writing.
   */
  COMMITTED_UNRECORDED: 'DPONE_TARGET_COMMITTED_UNRECORDED',
  /** A transition the state table does not allow. */
  ILLEGAL_TRANSITION: 'DPONE_TARGET_COMMIT_ILLEGAL_TRANSITION',
  /** Bad input: workload, scenario, flag, operation id. */
  INVALID_INPUT: 'DPONE_INVALID_INPUT',
  /** A platform identity is required and was not given. */
  UNAUTHORIZED: 'DPONE_UNAUTHORIZED',
  /** A route is not certified or not known. */
  ROUTE_NOT_CERTIFIED: 'DPONE_ROUTE_NOT_CERTIFIED',
  /** A required environment (server, engine, binary) is missing. */
  ENVIRONMENT_UNAVAILABLE: 'DPONE_ENVIRONMENT_UNAVAILABLE',
  /** A retry-safe failure before any target mutation began (source read, fence preparation). */
  PRE_COMMIT_FAILED: 'DPONE_TARGET_COMMIT_PRE_COMMIT_FAILED',
  /** An evidence file failed its integrity check. */
  EVIDENCE_TAMPERED: 'DPONE_EVIDENCE_TAMPERED',
  /**
   * The journal and the target fence disagree in a way no automatic step may settle (the fence is
   * missing where the journal says it was prepared, or it lives elsewhere than the journal recorded).
   * Nothing was mutated; an operator inspects.
   */
  DIVERGED: 'DPONE_TARGET_COMMIT_DIVERGED',
  /** The server refused the credentials (wrong password, unknown role): a retry cannot help. */
  AUTHENTICATION_FAILED: 'DPONE_AUTHENTICATION_FAILED',
  /** The role lacks a privilege it needs (the error names which, never the SQL). */
  PERMISSION_DENIED: 'DPONE_PERMISSION_DENIED',
  /** A database, schema, table or column the workload names does not exist. */
  OBJECT_NOT_FOUND: 'DPONE_OBJECT_NOT_FOUND',
  /** The target refused the data itself (type mismatch, NOT NULL, unique or check violation). */
  DATA_REJECTED: 'DPONE_DATA_REJECTED',
  /**
   * Another operation's swap into the same target partition is in flight or not yet settled
   * (a staging target's partition claims): nothing was written; retry once it has finished.
   */
  PARTITION_BUSY: 'DPONE_TARGET_PARTITION_BUSY',
  /**
   * The deployment policy asks for `enforced`, but the route lacks what enforcement needs (a
   * certification record this deployment trusts for the running code, a durable journal, a fence):
   * the run fails closed before any I/O, naming what is missing; it never runs a weaker mode.
   */
  ENFORCEMENT_UNAVAILABLE: 'DPONE_ENFORCEMENT_UNAVAILABLE',
  /** The file system under the journal or the target is full: nothing was half-written; free space, then retry. */
  STORAGE_FULL: 'DPONE_STORAGE_FULL',
  /**
   * The journal's bytes are damaged (a page, the header): it is not read as any state. Restore it
   * and do not retry; the target's fence still says what committed.
   */
  JOURNAL_CORRUPT: 'DPONE_TARGET_COMMIT_JOURNAL_CORRUPT',
  /** SIGINT or SIGTERM stopped the command between steps; what it held was released. */
  INTERRUPTED: 'DPONE_INTERRUPTED',
  INTERNAL: 'DPONE_INTERNAL',
} as const;

export type ErrorCode = (typeof ERROR_CODES)[keyof typeof ERROR_CODES];

/**
 * Process exit codes, one table. 0 is success; 1 is reserved for "a check failed" (certify) so
 * runtime outcomes start at 10 and stay distinct from certify's 0/1/2/3.
 */
export const EXIT_CODES: Readonly<Record<ErrorCode, number>> = {
  DPONE_INVALID_INPUT: 2,
  DPONE_TARGET_COMMIT_JOURNAL_UNAVAILABLE: 10,
  DPONE_TARGET_COMMIT_FENCE_UNAVAILABLE: 11,
  DPONE_TARGET_COMMIT_PRE_COMMIT_FAILED: 12,
  DPONE_TARGET_COMMIT_CAS_CONFLICT: 13,
  DPONE_TARGET_COMMIT_FENCED: 14,
  DPONE_TARGET_COMMITTED_UNRECORDED: 15,
  DPONE_TARGET_PARTITION_BUSY: 16,
  DPONE_ENFORCEMENT_UNAVAILABLE: 17,
  DPONE_STORAGE_FULL: 18,
  DPONE_TARGET_COMMIT_JOURNAL_CORRUPT: 19,
  DPONE_TARGET_COMMIT_UNKNOWN: 20,
  DPONE_TARGET_COMMITTED_INCOMPLETE: 21,
  DPONE_TARGET_COMMIT_INTENT_CONFLICT: 22,
  DPONE_TARGET_COMMIT_RECOVERY_CONFLICT: 23,
  DPONE_TARGET_COMMIT_ILLEGAL_TRANSITION: 24,
  DPONE_UNAUTHORIZED: 25,
  DPONE_ROUTE_NOT_CERTIFIED: 26,
  DPONE_ENVIRONMENT_UNAVAILABLE: 27,
  DPONE_EVIDENCE_TAMPERED: 28,
  DPONE_TARGET_COMMIT_DIVERGED: 29,
  DPONE_AUTHENTICATION_FAILED: 30,
  DPONE_PERMISSION_DENIED: 31,
  DPONE_OBJECT_NOT_FOUND: 32,
  DPONE_DATA_REJECTED: 33,
  DPONE_INTERRUPTED: 130,
  DPONE_INTERNAL: 70,
};

/** Codes after which an ordinary retry is safe: no target mutation can have begun. */
export const RETRY_SAFE_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  ERROR_CODES.JOURNAL_UNAVAILABLE,
  ERROR_CODES.FENCE_UNAVAILABLE,
  ERROR_CODES.PRE_COMMIT_FAILED,
  ERROR_CODES.CAS_CONFLICT,
  ERROR_CODES.FENCED,
  ERROR_CODES.PARTITION_BUSY,
  ERROR_CODES.STORAGE_FULL,
]);

/** The only fields an error may expose. Each is a safe identity or a short fixed vocabulary. */
export interface SafeErrorFields {
  readonly operationId?: string;
  readonly state?: string;
  readonly journalVersion?: number;
  readonly recoveryReference?: string;
  /** For INVALID_INPUT: where the input is wrong (file:line:column, key path or flag name). */
  readonly location?: string;
  /** For INVALID_INPUT: the field or flag at fault. */
  readonly field?: string;
  /** A server's own error class (e.g. the SQLSTATE `42501`); never its message. */
  readonly sqlstate?: string;
  /** What to do about it, written by us from safe values (a privilege name, a setting). */
  readonly hint?: string;
}

export interface DponeErrorJSON extends SafeErrorFields {
  readonly name: 'DponeError';
  readonly code: ErrorCode;
  readonly message: string;
  readonly exitCode: number;
}

/**
 * The one error class. `message` must be written by us from safe values; a driver's message is
 * never copied in (it may hold SQL or a connection string). The driver error is kept as `cause`
 * for in-process debugging and is never serialised.
 */
export class DponeError extends Error {
  readonly code: ErrorCode;
  readonly fields: SafeErrorFields;

  constructor(code: ErrorCode, message: string, fields: SafeErrorFields = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DponeError';
    this.code = code;
    this.fields = fields;
  }

  get exitCode(): number {
    return EXIT_CODES[this.code];
  }

  toJSON(): DponeErrorJSON {
    return {
      name: 'DponeError',
      code: this.code,
      message: this.message,
      exitCode: this.exitCode,
      ...this.fields,
    };
  }
}

/** Recognises our errors by code, also across process boundaries (a parsed JSON line). */
export function isDponeError(value: unknown, code?: ErrorCode): value is DponeError {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as { code?: unknown };
  if (
    typeof candidate.code !== 'string' ||
    !Object.values(ERROR_CODES).includes(candidate.code as ErrorCode)
  ) {
    return false;
  }
  return code === undefined || candidate.code === code;
}

export function invalidInput(message: string, fields: SafeErrorFields = {}): DponeError {
  return new DponeError(ERROR_CODES.INVALID_INPUT, message, fields);
}

/**
 * Runs `operation`; one of our coded errors passes through as it is, anything else (a driver's,
 * a module's, an adapter's without a code) becomes `code` with `message` and `fields`, the original
 * kept private as its cause.
 */
export async function codedOr<T>(
  operation: () => Promise<T>,
  code: ErrorCode,
  message: string,
  fields: SafeErrorFields = {},
): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (isDponeError(error)) throw error;
    throw new DponeError(code, message, fields, { cause: error });
  }
}

/** INVALID_INPUT as `<field> <why>`, naming the field; `why` never quotes the value (it may be secret). */
export function invalidField(field: string, why: string): DponeError {
  return invalidInput(`${field} ${why}`, { field });
}
