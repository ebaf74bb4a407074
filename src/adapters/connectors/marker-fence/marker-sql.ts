/** Named parameters of a fence statement, written `@name` in the SQL text. */
export type FenceParams = Readonly<Record<string, string | number | null>>;

/** How the dialect's SQL spells the fence statements' differing parts. */
export interface FenceSqlStyle {
  /** The fence table as the SQL must name it (quoted, schema-qualified where the database has schemas). */
  readonly table: string;
  /** A string literal (`'x'`, or `N'x'` for NVARCHAR). */
  literal(text: string): string;
  /** Table hint after the table name in the guard UPDATE (where the row lock needs one to last to COMMIT). */
  readonly guardHint: string;
  /** Table hint after the table name in a read (where one is needed to wait for an in-flight guard). */
  readonly readHint: string;
  /** INSERT of one row unless the operation has one already; never fails on a duplicate. */
  insertIfAbsent(columns: readonly string[], values: readonly string[]): string;
  /** Appended to the guard where a driver cannot report its `affected` otherwise (a count selected after). */
  readonly guardSuffix: string;
  /** Ends a statement that may be sent in one batch with others (`;`; empty where each goes alone). */
  readonly end: string;
}

/** The fence table's columns, in the order every dialect's DDL declares them. */
export const FENCE_COLUMNS = [
  'operation_id',
  'epoch',
  'status',
  'committed_epoch',
  'rows_written',
  'intent_digest',
  'holder',
  'updated_at_ms',
] as const;

/** Columns added after the first release: a fence table created before them gains them on open. */
export const ADDED_FENCE_COLUMNS = ['intent_digest', 'holder'] as const;

/** The fence statements, written once; a dialect's style fills in what its SQL spells differently. */
export interface FenceSql {
  /** Inserts the row in `prepared` for the caller's epoch, holder and intent, unless one exists. */
  readonly insertIfAbsent: string;
  /**
   * Raises the epoch (never lowers it) and records the holder that raised it, only for the
   * caller's intent; a row from before intent digests adopts the caller's. Never touches the
   * status. On a committed row the holder stays the one whose epoch committed (the row's holder
   * and committed epoch always agree; a later holder has nothing left to commit).
   */
  readonly raiseEpoch: string;
  /** The row as the protocol reads it. */
  readonly select: string;
  /**
   * THE commit guard, one statement: the row turns committed only while it holds @epoch for
   * @intent_digest and is not committed yet. `affected` 0 means: refuse, write nothing.
   */
  readonly guard: string;
  /**
   * Records the rows the mutation wrote, in its transaction after the rows (the guard, the first
   * statement, cannot know them yet): only on the row this epoch's guard turned committed.
   */
  readonly recordRows: string;
  /** Unsafe "guard on epoch only" (the fence before issue 10): no status, no intent check. */
  readonly guardEpochOnly: string;
  /** Unsafe "ignore-epoch": status and intent checked, the epoch not. */
  readonly guardIgnoringEpoch: string;
  /** Unsafe install that accepts an equal epoch from any holder and any intent (raise only). */
  readonly raiseEpochAnyIntent: string;
  /** Unsafe install by overwrite, last writer wins: the caller's epoch (also a lower one), prepared again. */
  readonly overwriteFence: string;
}

export function fenceSql(style: FenceSqlStyle): FenceSql {
  const { table, end } = style;
  const committed = style.literal('committed');
  const guard = (where: string) =>
    `UPDATE ${table}${style.guardHint} SET status = ${committed}, committed_epoch = @epoch, ` +
    `rows_written = @rows_written, updated_at_ms = @now_ms WHERE operation_id = @operation_id AND ${where}${end}${style.guardSuffix}`;
  const raise = (intent: string) =>
    `UPDATE ${table} SET epoch = @epoch, holder = CASE WHEN status = ${committed} THEN holder ELSE @holder END, ` +
    `intent_digest = COALESCE(intent_digest, @intent_digest), ` +
    `updated_at_ms = @now_ms WHERE operation_id = @operation_id AND epoch < @epoch${intent}${end}`;
  return {
    insertIfAbsent: style.insertIfAbsent(
      ['operation_id', 'epoch', 'status', 'intent_digest', 'holder', 'updated_at_ms'],
      ['@operation_id', '@epoch', style.literal('prepared'), '@intent_digest', '@holder', '@now_ms'],
    ),
    raiseEpoch: raise(' AND (intent_digest IS NULL OR intent_digest = @intent_digest)'),
    raiseEpochAnyIntent: raise(''),
    overwriteFence:
      `UPDATE ${table} SET epoch = @epoch, holder = @holder, intent_digest = @intent_digest, ` +
      `status = ${style.literal('prepared')}, committed_epoch = NULL, updated_at_ms = @now_ms ` +
      `WHERE operation_id = @operation_id${end}`,
    select:
      `SELECT ${FENCE_COLUMNS.filter((c) => c !== 'operation_id' && c !== 'updated_at_ms').join(', ')} ` +
      `FROM ${table}${style.readHint} WHERE operation_id = @operation_id`,
    guard: guard(`epoch = @epoch AND status <> ${committed} AND intent_digest = @intent_digest`),
    recordRows:
      `UPDATE ${table} SET rows_written = @rows_written WHERE operation_id = @operation_id ` +
      `AND status = ${committed} AND committed_epoch = @epoch${end}`,
    guardEpochOnly: guard('epoch = @epoch'),
    guardIgnoringEpoch: guard(`status <> ${committed} AND intent_digest = @intent_digest`),
  };
}

/**
 * The plain style most SQL databases share (built-in targets and plug-ins alike): plain literals,
 * no table hints, insert-if-absent as `INSERT … ON CONFLICT DO NOTHING`, one statement per call.
 * A dialect that spells one part otherwise spreads this and replaces that part (each engine's
 * dialect lives in its folder, connectors/<engine>/).
 */
export function onConflictStyle(table: string): FenceSqlStyle {
  return {
    table,
    literal: (text) => `'${text}'`,
    guardHint: '',
    readHint: '',
    insertIfAbsent: (columns, values) =>
      `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${values.join(', ')}) ` +
      'ON CONFLICT (operation_id) DO NOTHING',
    guardSuffix: '',
    end: '',
  };
}

const NAMED = /@([a-z_][a-z0-9_]*)/g;

/** The distinct `@name` parameters of a statement, in order of first use. */
export function parameterNames(sql: string): string[] {
  return [...new Set([...sql.matchAll(NAMED)].map((m) => m[1]!))];
}

/** Only the parameters the statement uses (a driver may refuse unknown ones). */
export function usedParameters(sql: string, params: FenceParams): Record<string, string | number | null> {
  return Object.fromEntries(parameterNames(sql).map((name) => [name, params[name] ?? null]));
}

/** `@name` → `$n` with the values in that order, for drivers with positional parameters only. */
export function positional(sql: string, params: FenceParams): { text: string; values: unknown[] } {
  const names = parameterNames(sql);
  const text = sql.replace(NAMED, (_, name: string) => `$${names.indexOf(name) + 1}`);
  return { text, values: names.map((name) => params[name] ?? null) };
}
