/**
 * What a ClickHouse server error code says about its cause: the table the ClickHouse connector
 * classes errors by (like src/contracts/sqlstate.ts for SQLSTATE). Only the number is read, never
 * the message for the code (it quotes SQL and row values). Names as in ClickHouse's
 * src/Common/ErrorCodes.cpp; 18.16 and current releases share them.
 *
 * Permanent causes (a retry with the same workload, grants and data cannot succeed):
 * - `authentication`: the login was refused;
 * - `privilege`: the user may not write, or not this;
 * - `missing-object`: a database, table or column the workload names is absent;
 * - `data`: the server could not take a value (parse errors, out of range, NULL into a non-Nullable
 *   column, a string too long for its FixedString, an unknown Enum name — 18.16 reports that one as
 *   LOGICAL_ERROR 49 while parsing rows, so 49 is data only where rows are being inserted);
 * - `definition`: the target's definition or a setting is refused (a type this server will not
 *   create without a setting, an unknown setting, incompatible columns, syntax the server lacks).
 * `transient`: the server is busy, slow, short of memory or disk, shutting down, or the connection
 * broke — a retry may succeed.
 * Any code not listed is treated as transient (the caller keeps its retry code): an unknown code
 * must never turn a retry-safe failure into a permanent one.
 */
export type ClickHouseCause =
  'authentication' | 'privilege' | 'missing-object' | 'data' | 'definition' | 'transient';

export const CLICKHOUSE_ERROR_CODES: Readonly<
  Record<number, { readonly name: string; readonly cause: ClickHouseCause }>
> = {
  1: { name: 'UNSUPPORTED_METHOD', cause: 'definition' },
  3: { name: 'UNEXPECTED_END_OF_FILE', cause: 'transient' },
  6: { name: 'CANNOT_PARSE_TEXT', cause: 'data' },
  16: { name: 'NO_SUCH_COLUMN_IN_TABLE', cause: 'missing-object' },
  20: { name: 'NUMBER_OF_COLUMNS_DOESNT_MATCH', cause: 'definition' },
  26: { name: 'CANNOT_PARSE_QUOTED_STRING', cause: 'data' },
  27: { name: 'CANNOT_PARSE_INPUT_ASSERTION_FAILED', cause: 'data' },
  32: { name: 'ATTEMPT_TO_READ_AFTER_EOF', cause: 'data' },
  36: { name: 'BAD_ARGUMENTS', cause: 'data' },
  38: { name: 'CANNOT_PARSE_DATE', cause: 'data' },
  41: { name: 'CANNOT_PARSE_DATETIME', cause: 'data' },
  43: { name: 'ILLEGAL_TYPE_OF_ARGUMENT', cause: 'definition' },
  44: { name: 'ILLEGAL_COLUMN', cause: 'definition' },
  47: { name: 'UNKNOWN_IDENTIFIER', cause: 'missing-object' },
  53: { name: 'TYPE_MISMATCH', cause: 'data' },
  62: { name: 'SYNTAX_ERROR', cause: 'definition' },
  60: { name: 'UNKNOWN_TABLE', cause: 'missing-object' },
  69: { name: 'ARGUMENT_OUT_OF_BOUND', cause: 'data' },
  70: { name: 'CANNOT_CONVERT_TYPE', cause: 'data' },
  72: { name: 'CANNOT_PARSE_NUMBER', cause: 'data' },
  81: { name: 'UNKNOWN_DATABASE', cause: 'missing-object' },
  115: { name: 'UNKNOWN_SETTING', cause: 'definition' },
  117: { name: 'INCORRECT_DATA', cause: 'data' },
  122: { name: 'INCOMPATIBLE_COLUMNS', cause: 'definition' },
  131: { name: 'TOO_LARGE_STRING_SIZE', cause: 'data' },
  159: { name: 'TIMEOUT_EXCEEDED', cause: 'transient' },
  160: { name: 'TOO_SLOW', cause: 'transient' },
  164: { name: 'READONLY', cause: 'privilege' },
  192: { name: 'UNKNOWN_USER', cause: 'authentication' },
  193: { name: 'WRONG_PASSWORD', cause: 'authentication' },
  194: { name: 'REQUIRED_PASSWORD', cause: 'authentication' },
  202: { name: 'TOO_MANY_SIMULTANEOUS_QUERIES', cause: 'transient' },
  203: { name: 'NO_FREE_CONNECTION', cause: 'transient' },
  209: { name: 'SOCKET_TIMEOUT', cause: 'transient' },
  210: { name: 'NETWORK_ERROR', cause: 'transient' },
  218: { name: 'TABLE_IS_DROPPED', cause: 'transient' },
  236: { name: 'ABORTED', cause: 'transient' },
  241: { name: 'MEMORY_LIMIT_EXCEEDED', cause: 'transient' },
  242: { name: 'TABLE_IS_READ_ONLY', cause: 'transient' },
  243: { name: 'NOT_ENOUGH_SPACE', cause: 'transient' },
  252: { name: 'TOO_MANY_PARTS', cause: 'transient' },
  319: { name: 'UNKNOWN_STATUS_OF_INSERT', cause: 'transient' },
  321: { name: 'VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE', cause: 'data' },
  349: { name: 'CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN', cause: 'data' },
  377: { name: 'ILLEGAL_SYNTAX_FOR_DATA_TYPE', cause: 'data' },
  394: { name: 'QUERY_WAS_CANCELLED', cause: 'transient' },
  407: { name: 'DECIMAL_OVERFLOW', cause: 'data' },
  425: { name: 'SYSTEM_ERROR', cause: 'transient' },
  473: { name: 'DEADLOCK_AVOIDED', cause: 'transient' },
  497: { name: 'ACCESS_DENIED', cause: 'privilege' },
  516: { name: 'AUTHENTICATION_FAILED', cause: 'authentication' },
};

/** 18.16 reports an Enum name outside the set as LOGICAL_ERROR while it parses inserted rows. */
const LOGICAL_ERROR = 49;

/** The cause of server code `code`; `inserting`: rows were being parsed (49 is then data). */
export function clickHouseCause(code: number, inserting = false): ClickHouseCause {
  if (code === LOGICAL_ERROR && inserting) return 'data';
  return CLICKHOUSE_ERROR_CODES[code]?.cause ?? 'transient';
}
