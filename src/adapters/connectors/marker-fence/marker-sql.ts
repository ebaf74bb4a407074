import type { FenceParams } from './marker-dialect.ts';

/** How the dialect's SQL spells the fence statements' differing parts. */
export interface FenceSqlStyle {
  /** The fence table as the SQL must name it (quoted, schema-qualified where the database has schemas). */
  readonly table: string;
  /** A string literal (`'x'`, or `N'x'` for NVARCHAR). */
  literal(text: string): string;
  /** Table hint after the table name in the guard UPDATE (MSSQL: row lock held to COMMIT). */
  readonly guardHint: string;
  /** Table hint after the table name in a read (MSSQL: wait for an in-flight guard). */
  readonly readHint: string;
  /** INSERT of one row unless the operation has one already; never fails on a duplicate. */
  insertIfAbsent(columns: readonly string[], values: readonly string[]): string;
  /** Appended to the guard so its `affected` can be read (MSSQL: `SELECT @@ROWCOUNT`). */
  readonly guardSuffix: string;
  /** Ends a statement that may be sent in one batch with others (MSSQL: `;`). */
  readonly end: string;
}

/** The fence statements, written once; a dialect's style fills in what its SQL spells differently. */
export interface FenceSql {
  /** Inserts the row in `prepared` unless the operation has one. */
  readonly insertIfAbsent: string;
  /** Raises the epoch, never lowers it, never touches the status. */
  readonly raiseEpoch: string;
  /** The row's epoch, status, committed epoch and rows. */
  readonly select: string;
  /** The commit guard: the row turns committed only while it holds @epoch. */
  readonly guard: string;
  /** The unsafe "ignore-epoch" guard: keyed by the operation only. */
  readonly guardIgnoringEpoch: string;
}

export function fenceSql(style: FenceSqlStyle): FenceSql {
  const { table, end } = style;
  const guard = (where: string) =>
    `UPDATE ${table}${style.guardHint} SET status = ${style.literal('committed')}, committed_epoch = @epoch, ` +
    `rows_written = @rows_written, updated_at_ms = @now_ms WHERE ${where}${end}${style.guardSuffix}`;
  return {
    insertIfAbsent: style.insertIfAbsent(
      ['operation_id', 'epoch', 'status', 'updated_at_ms'],
      ['@operation_id', '@epoch', style.literal('prepared'), '@now_ms'],
    ),
    raiseEpoch:
      `UPDATE ${table} SET epoch = @epoch, updated_at_ms = @now_ms ` +
      `WHERE operation_id = @operation_id AND epoch < @epoch${end}`,
    select:
      `SELECT epoch, status, committed_epoch, rows_written FROM ${table}${style.readHint} ` +
      'WHERE operation_id = @operation_id',
    guard: guard('operation_id = @operation_id AND epoch = @epoch'),
    guardIgnoringEpoch: guard('operation_id = @operation_id'),
  };
}

/**
 * The style of SQLite and PostgreSQL, which spell every fence statement alike: plain literals, no
 * table hints, insert-if-absent as `INSERT … ON CONFLICT DO NOTHING`, one statement per call.
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
