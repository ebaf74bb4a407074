import type { SafeErrorFields } from '../../src/contracts/errors.ts';
import { DponeError, ERROR_CODES, isDponeError } from '../../src/contracts/errors.ts';
import { CAUSE_CODES } from '../../src/contracts/error-causes.ts';
import type { SqlstateCause } from './postgres-sqlstate.ts';
import { serverSqlstate, sqlstateCause } from './postgres-sqlstate.ts';

/**
 * Driver errors by cause. A PostgreSQL error carries a SQLSTATE; its class decides whether a retry
 * can help. Causes a retry cannot fix (authentication, privilege, missing object, rejected data)
 * get their own non-retry code; everything else keeps the caller's code (connection loss,
 * serialization failures, timeouts stay "retry"); a full disk (53100) is DPONE_STORAGE_FULL. The error carries the SQLSTATE and a hint
 * written here from safe values (a privilege, a workload field), never the server's message.
 */

/** Where a step runs: which workload endpoint it talks to. */
export type Endpoint = 'source' | 'target';

const NEEDED = new WeakMap<object, string>();

/** The SQLSTATE of a server error; undefined for client-side failures (refused, reset, timed out). */
export const sqlstateOf = serverSqlstate;

/**
 * Runs one step and labels a driver failure with the privilege the step needs (e.g. "INSERT on
 * table dw.events"), so a 42501 can say which grant is missing without quoting SQL.
 */
export async function needing<T>(privilege: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (typeof error === 'object' && error !== null && !NEEDED.has(error)) NEEDED.set(error, privilege);
    throw error;
  }
}

const DATA_HINTS: Readonly<Record<string, string>> = {
  '21000': 'a statement of the target (a trigger, a rule) got more rows than it takes',
  '27000': 'a trigger of the target changed a row the write was changing',
  '44000': 'a row violates a WITH CHECK OPTION (a view or a row-level security policy)',
  P0001: 'a trigger or rule of the target raised an error for the rows',
  '428C9': 'a column of data.columns is one the target computes (GENERATED ALWAYS)',
  '23502': 'a NOT NULL column of the target got no value',
  '23505': 'a row violates a unique constraint of the target',
  '23503': 'a row violates a foreign key of the target',
  '23514': 'a row violates a check constraint of the target',
  '42804': 'a value’s type does not match the target column',
};

function missingHint(sqlstate: string, endpoint: Endpoint): string {
  switch (sqlstate) {
    case '3D000':
      return `the database named in ${endpoint}.url does not exist`;
    case '3F000':
      return `the schema of ${endpoint}.table (or ?schema= in ${endpoint}.url) does not exist`;
    case '42703':
      return `a column of data.columns is not in ${endpoint}.table (names are quoted and case-sensitive)`;
    case '42704':
      return 'a type named in target.create.columns does not exist';
    default:
      return `${endpoint}.table does not exist (names are quoted and case-sensitive: "Events" is not "events"); create it, or let dpone create it with target.create`;
  }
}

/** Classes where the table's definition (not a value) refused: class 42, routines (2F, 38, 39). */
const DEFINITION_CLASSES = new Set(['42', '2F', '38', '39']);

function dataHint(sqlstate: string): string {
  return DEFINITION_CLASSES.has(sqlstate.slice(0, 2))
    ? 'the target table’s definition (a trigger, rule, routine or column kind) refuses the write'
    : 'a value does not fit the target column’s type';
}

/** 23514 without a constraint name: PostgreSQL's "no partition of relation … found for row". */
function noPartition(error: unknown, sqlstate: string): boolean {
  if (sqlstate !== '23514' || typeof error !== 'object' || error === null) return false;
  const { constraint } = error as { constraint?: unknown };
  return typeof constraint !== 'string' || constraint === '';
}

function hintFor(
  cause: SqlstateCause,
  sqlstate: string,
  endpoint: Endpoint,
  needed: string | undefined,
  error: unknown,
): string {
  switch (cause) {
    case 'authentication':
      return `the server refused the login: check the user in ${endpoint}.url and the password in the variable ${endpoint}.password_env names`;
    case 'privilege':
      if (sqlstate === '0A000')
        return `${endpoint}.table refuses COPY for its row-level security: load with a role that bypasses it (BYPASSRLS, or the owner of a table without FORCE ROW LEVEL SECURITY), or disable it on the table`;
      return `the ${endpoint} role needs ${needed ?? 'a privilege it lacks'} (examples/postgres/setup.sql lists every grant)`;
    case 'missing-object':
      return missingHint(sqlstate, endpoint);
    case 'data':
      if (noPartition(error, sqlstate))
        return `no partition of ${endpoint}.table takes the rows: create the partition for data.partition.value (or a DEFAULT partition), then run again`;
      return `${DATA_HINTS[sqlstate] ?? dataHint(sqlstate)}: compare the target table’s column types and constraints with the source`;
    default:
      return 'a retry may succeed';
  }
}

const WHAT: Readonly<Record<keyof typeof CAUSE_CODES, string>> = {
  authentication: 'refused the login',
  privilege: 'denied a privilege',
  'missing-object': 'does not have an object the workload names',
  data: 'rejected the data',
};

/** disk_full: the server could not extend a file (a table, an index, a new WAL file) for lack of space. */
export const DISK_FULL_SQLSTATE = '53100';

/**
 * A server error that says its disk is full (SQLSTATE 53100), as DPONE_STORAGE_FULL: free space,
 * then retry (the statement failed, so its transaction rolled back whole). `what` names the part
 * ("PostgreSQL target", "PostgreSQL commit journal"); the message says the cause by its fixed name
 * (DISK_FULL), never the server's text. Null for any other error.
 */
export function postgresDiskFull(
  error: unknown,
  what: string,
  fields: SafeErrorFields = {},
): DponeError | null {
  if (serverSqlstate(error) !== DISK_FULL_SQLSTATE) return null;
  return new DponeError(
    ERROR_CODES.STORAGE_FULL,
    `the ${what} could not be written: its server's disk is full (DISK_FULL)`,
    {
      ...fields,
      sqlstate: DISK_FULL_SQLSTATE,
      hint: `free space on the disk of the ${what}'s server (its data directory), then retry: nothing was half-written`,
    },
    { cause: error },
  );
}

/**
 * Turns a driver error into our error. A cause a retry cannot fix gets its own code; otherwise
 * `fallback` (the caller's retry code) is returned with the SQLSTATE added when there is one.
 * Our own coded errors pass through unchanged.
 */
export function classifyPostgresError(
  error: unknown,
  endpoint: Endpoint,
  fallback: (fields: Pick<SafeErrorFields, 'sqlstate' | 'hint'>) => DponeError,
  fields: SafeErrorFields = {},
): DponeError {
  if (isDponeError(error)) return error as DponeError;
  const full = postgresDiskFull(error, `PostgreSQL ${endpoint}`, fields);
  if (full) return full;
  const sqlstate = sqlstateOf(error);
  if (sqlstate === undefined) return fallback({});
  const cause = sqlstateCause(sqlstate);
  const needed = typeof error === 'object' && error !== null ? NEEDED.get(error) : undefined;
  const hint = hintFor(cause, sqlstate, endpoint, needed, error);
  if (!(cause in CAUSE_CODES)) return fallback({ sqlstate });
  const known = cause as keyof typeof CAUSE_CODES;
  return new DponeError(
    CAUSE_CODES[known],
    `the PostgreSQL ${endpoint} ${WHAT[known]}; a retry cannot fix this`,
    { ...fields, sqlstate, hint },
    { cause: error },
  );
}
