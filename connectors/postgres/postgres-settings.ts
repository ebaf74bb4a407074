import { DponeError, ERROR_CODES } from '../../src/contracts/errors.ts';
import { serverSqlstate } from './postgres-sqlstate.ts';

/** The slice of a PostgreSQL client these functions use (node-postgres' Client and PoolClient fit). */
export interface SettingsClient {
  query(text: string): Promise<unknown>;
}

/**
 * Session settings that hold whatever sits between dpone and the server. Startup parameters
 * (`-c` options, statement_timeout) are refused by PgBouncer unless `ignore_startup_parameters`
 * names them, and then silently never reach the server; a session-level SET in transaction pooling
 * lands on whichever server connection answers and leaks to other clients. So every transaction
 * that reads or writes rows starts with `SET LOCAL` of each setting (it holds for exactly that
 * transaction, on the one server connection a pooler keeps for it, in session and transaction
 * pooling alike), then reads them back from `pg_settings` in the same round trip and refuses
 * (exit 2, naming the setting and the likely pooler) where one does not hold.
 */

/**
 * Every setting that changes how a value is written as text, pinned on source and target alike, so
 * a value leaves the source and enters the target in one canonical form whatever a role or
 * database sets (`ALTER ROLE … SET DateStyle='SQL, DMY'` would otherwise turn 2026-07-05 into
 * 05/07/2026, which a target with MDY reads as May 7; extra_float_digits=0 drops float digits).
 * ISO dates, UTC instants, shortest-exact floats, hex bytea, C money and postgres intervals all
 * read back to the same value. Values are as `pg_settings.setting` shows them.
 */
export const SESSION_SETTINGS: Readonly<Record<string, string>> = {
  DateStyle: 'ISO, MDY',
  IntervalStyle: 'postgres',
  extra_float_digits: '3',
  TimeZone: 'UTC',
  bytea_output: 'hex',
  lc_monetary: 'C',
  xmloption: 'content',
};

/** `synchronous_commit` levels a workload may ask for: `on` (default) or replica-durable ones. */
export const DURABLE_COMMIT_LEVELS = ['on', 'remote_write', 'remote_apply'] as const;
export type DurableCommitLevel = (typeof DURABLE_COMMIT_LEVELS)[number];

/** What a connection pins in each of its transactions. */
export interface PinnedSettings {
  /** The workload field naming the connection (`source.url`, `target.url`, `--journal`). */
  readonly field: string;
  /** statement_timeout and lock_timeout, in ms (the URL's query_timeout_ms). */
  readonly timeoutMs: number;
  /** `?schema=`: the transaction's search_path. */
  readonly searchPath?: string;
  /** Pin the value settings (source and target; the journal stores no values as text, and its SQL names its schema). */
  readonly values: boolean;
  /** synchronous_commit of writing transactions (the fence + data, the journal). */
  readonly durableCommit: DurableCommitLevel;
}

export type TransactionMode = 'read-only' | 'read-write';

/** The settings a transaction of this mode pins, by name, with the value pg_settings must show. */
export function pinnedValues(pinned: PinnedSettings, mode: TransactionMode): Map<string, string> {
  const values = new Map<string, string>(pinned.values ? Object.entries(SESSION_SETTINGS) : []);
  values.set('statement_timeout', String(pinned.timeoutMs));
  values.set('lock_timeout', String(pinned.timeoutMs));
  if (pinned.searchPath !== undefined) values.set('search_path', pinned.searchPath);
  if (mode === 'read-write') values.set('synchronous_commit', pinned.durableCommit);
  return values;
}

/** The server's wall clock in Unix milliseconds, read with the settings (the journal's `now`). */
const SERVER_CLOCK_MS = 'floor(extract(epoch from clock_timestamp()) * 1000)::bigint';

const literal = (value: string) => `'${value.replaceAll("'", "''")}'`;

/**
 * One simple-protocol round trip: BEGIN, a SET LOCAL per setting, and the read-back. Every value
 * is ours (constants, an integer, a checked lower-case schema name): no input reaches this text.
 */
export function beginSql(pinned: PinnedSettings, mode: TransactionMode): string {
  const values = pinnedValues(pinned, mode);
  const sets = [...values].map(([name, value]) => `SET LOCAL ${name} = ${literal(value)}`);
  const names = [...values.keys()].map(literal).join(', ');
  return [
    mode === 'read-only' ? 'BEGIN READ ONLY' : 'BEGIN',
    ...sets,
    `SELECT name, setting, ${SERVER_CLOCK_MS} AS now_ms FROM pg_settings WHERE name IN (${names})`,
  ].join('; ');
}

/** Which setting did not hold, or null when all did. */
export function settingNotHeld(
  expected: ReadonlyMap<string, string>,
  rows: readonly Readonly<Record<string, unknown>>[],
): string | null {
  const seen = new Map(rows.map((row) => [String(row.name), String(row.setting)]));
  for (const [name, value] of expected) if (seen.get(name) !== value) return name;
  return null;
}

/** Exit 2: a setting did not hold inside the transaction that set it. */
export function settingsRefused(pinned: PinnedSettings, setting: string): DponeError {
  return new DponeError(
    ERROR_CODES.INVALID_INPUT,
    `${pinned.field}: the session setting ${setting} did not hold inside the transaction that set it ` +
      '(SET LOCAL, read back from pg_settings); values or timeouts would not be what dpone pins',
    {
      field: pinned.field,
      hint:
        'something between dpone and PostgreSQL does not keep a transaction on one server connection: ' +
        'a pooler in statement mode (PgBouncer pool_mode = statement) or a proxy that rewrites SET; ' +
        'use PgBouncer pool_mode = session or transaction (README: poolers)',
    },
  );
}

const PROTOCOL_VIOLATION = '08P01';

/** Exit 2: the server side refused to open a transaction at all (a pooler in statement mode). */
function transactionRefused(pinned: PinnedSettings, cause: unknown): DponeError {
  return new DponeError(
    ERROR_CODES.INVALID_INPUT,
    `${pinned.field}: the server side refused to open a transaction (SQLSTATE 08P01): dpone needs transactions`,
    {
      field: pinned.field,
      sqlstate: PROTOCOL_VIOLATION,
      hint: 'a pooler in statement mode (PgBouncer pool_mode = statement) refuses transactions: use pool_mode = session or transaction (README: poolers)',
    },
    { cause },
  );
}

/** The last result of a multi-statement simple query (node-postgres answers an array there). */
function lastRows(result: unknown): readonly Readonly<Record<string, unknown>>[] {
  const last = Array.isArray(result) ? result[result.length - 1] : result;
  return ((last as { rows?: unknown } | undefined)?.rows ?? []) as Readonly<Record<string, unknown>>[];
}

/**
 * Opens a transaction with every pinned setting SET LOCAL and proven by its read-back; a setting
 * that does not hold rolls the transaction back and refuses (exit 2). Answers the server's clock
 * at the read-back (Unix ms), in the same round trip.
 */
export async function beginPinned(
  client: SettingsClient,
  pinned: PinnedSettings,
  mode: TransactionMode,
): Promise<number> {
  let result: unknown;
  try {
    result = await client.query(beginSql(pinned, mode));
  } catch (error) {
    // PgBouncer in statement pooling answers a transaction with FATAL 08P01 (protocol_violation):
    // nothing dpone sends could make that mode work, so it is the setup to fix, not a retry.
    if (serverSqlstate(error) === PROTOCOL_VIOLATION) throw transactionRefused(pinned, error);
    throw error;
  }
  const rows = lastRows(result);
  const missing = settingNotHeld(pinnedValues(pinned, mode), rows);
  if (missing === null) return Number(rows[0]?.now_ms);
  await client.query('ROLLBACK').catch(() => undefined);
  throw settingsRefused(pinned, missing);
}
