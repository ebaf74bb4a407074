import type { ErrorCode } from '../../src/contracts/errors.ts';
import { DponeError, ERROR_CODES } from '../../src/contracts/errors.ts';
import { clickHouseErrorCode } from './clickhouse-config.ts';
import type { ClickHouseCause } from './clickhouse-error-codes.ts';
import { CLICKHOUSE_ERROR_CODES, clickHouseCause } from './clickhouse-error-codes.ts';

/**
 * A ClickHouse server error as a DponeError by its cause (the table: clickhouse-error-codes.ts).
 * The server's message is never copied (it quotes SQL and row values); only a column name it
 * states in its row diagnostics (`name: <column>, type: …`) is taken, and only when it is one of
 * the workload's columns.
 */
type PermanentCause = Exclude<ClickHouseCause, 'transient'>;

const CAUSES: Readonly<Record<PermanentCause, { code: ErrorCode; text: string; hint: string }>> = {
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
  definition: {
    code: ERROR_CODES.INVALID_INPUT,
    text: "the ClickHouse server refused the target table's definition or a setting the protocol needs",
    hint: 'check the target table\'s column types against what this server version supports (README "ClickHouse"); a retry cannot succeed',
  },
};

/**
 * The workload column the server's row diagnostics blame: 18.16 and current releases list the row's
 * columns (`Column 1,   name: price, type: Decimal(9, 2), parsed text: …`) and put `ERROR: …` right
 * after the one that failed. Only a name that is one of the workload's columns is returned.
 */
export function namedColumn(error: unknown, columns: readonly string[]): string | null {
  const message = (error as { message?: unknown } | null)?.message;
  if (typeof message !== 'string') return null;
  let last: string | null = null;
  for (const line of message.split('\n')) {
    const m = /name:\s*([^,\s]+),\s*type:/.exec(line);
    if (m) last = m[1]!;
    else if (line.startsWith('ERROR') && last !== null) return columns.includes(last) ? last : null;
  }
  return null;
}

/**
 * A DponeError with the cause's non-retry code when the driver error carries a permanent code;
 * null otherwise (transient or unknown: the caller keeps its own retry code). `inserting`: rows
 * were being parsed (see clickHouseCause); `columns`: the workload's, to name the one at fault.
 */
export function classifyClickHouseError(
  error: unknown,
  fields: {
    readonly operationId?: string;
    readonly field?: string;
    readonly inserting?: boolean;
    readonly columns?: readonly string[];
  } = {},
): DponeError | null {
  const code = clickHouseErrorCode(error);
  if (code === null) return null;
  const cause = clickHouseCause(code, fields.inserting ?? false);
  if (cause === 'transient') return null;
  const { code: dpone, text, hint } = CAUSES[cause];
  const column = cause === 'data' ? namedColumn(error, fields.columns ?? []) : null;
  const name = CLICKHOUSE_ERROR_CODES[code]?.name ?? (code === 49 ? 'LOGICAL_ERROR' : 'UNKNOWN');
  return new DponeError(
    dpone,
    `${text}${column ? ` in column ${column}` : ''} (server code ${code} ${name})`,
    {
      ...(fields.operationId !== undefined ? { operationId: fields.operationId } : {}),
      ...(column
        ? { field: `data.columns.${column}` }
        : fields.field !== undefined
          ? { field: fields.field }
          : {}),
      hint,
    },
    { cause: error },
  );
}
