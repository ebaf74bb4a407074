import { invalidInput } from '../contracts/errors.ts';
import { refusedIdentifier, refusedSchema, refusedTableName } from '../contracts/postgres-names.ts';
import type { TargetCreateSpec, Workload } from '../contracts/workload.ts';

type Fields = Record<string, unknown>;

/**
 * A column type as written in `target.create.columns`: a type name (several words allowed, e.g.
 * `double precision`, `timestamp with time zone`, `dw.money_code`), an optional modifier such as
 * `(12,2)` and array brackets. Nothing else reaches the DDL: no quotes, semicolons or comments.
 */
const COLUMN_TYPE =
  /^[A-Za-z_][A-Za-z0-9_.]*( [A-Za-z_][A-Za-z0-9_]*)*( ?\(\d+( ?, ?\d+)?\))?( [A-Za-z]+)*(\[\])*$/;

/**
 * Reads `target.create` (opt-in creation of a missing target table): `columns` maps every
 * column of data.columns to its PostgreSQL type. Absent: a missing target table is refused.
 */
export function targetCreate(
  value: unknown,
  columns: readonly string[],
  targetEngine: string,
): TargetCreateSpec {
  const field = 'target.create';
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw invalidInput(`${field} must be a map with columns: { name: type }`, { field });
  const record = value as Fields;
  for (const key of Object.keys(record))
    if (key !== 'columns')
      throw invalidInput(`${field}.${key} is not a workload field (allowed here: columns)`, {
        field: `${field}.${key}`,
      });
  const types = record.columns;
  if (types === undefined || types === null)
    throw invalidInput(`${field}.columns is missing`, { field: `${field}.columns` });
  if (typeof types !== 'object' || types === null || Array.isArray(types))
    throw invalidInput(`${field}.columns must map each column of data.columns to its type`, {
      field: `${field}.columns`,
    });
  const typed = types as Fields;
  for (const [name, type] of Object.entries(typed)) {
    const at = `${field}.columns.${name}`;
    if (!columns.includes(name)) throw invalidInput(`${at}: "${name}" is not in data.columns`, { field: at });
    if (typeof type !== 'string' || !COLUMN_TYPE.test(type.trim()))
      throw invalidInput(`${at} must be a PostgreSQL type such as bigint, date, numeric(12,2) or text`, {
        field: at,
      });
  }
  const untyped = columns.filter((name) => !Object.hasOwn(typed, name));
  if (untyped.length > 0)
    throw invalidInput(`${field}.columns gives no type for ${untyped.join(', ')}`, {
      field: `${field}.columns`,
    });
  if (targetEngine !== 'postgres')
    throw invalidInput(`${field} is supported only when the target is postgres`, { field });
  return { columns: Object.fromEntries(columns.map((name) => [name, String(typed[name]).trim()])) };
}

/** `?schema=` of a PostgreSQL URL, when it names one. */
function urlSchema(url: string): string | null {
  try {
    return new URL(url).searchParams.get('schema');
  } catch {
    return null; // the connector reports a malformed URL when it opens it
  }
}

/**
 * What PostgreSQL would do silently to a workload's names, refused at load (exit 2): tables in a
 * temporary or system schema (as `schema.table` or through `?schema=`), and table or column names
 * over 63 bytes (the server truncates them, so long names could collide).
 */
export function checkPostgresNames(
  workload: Workload,
  ends: readonly ('source' | 'target')[] = ['source', 'target'],
): void {
  for (const end of ends) {
    const refusedTable = refusedTableName(workload[end].table);
    if (refusedTable) throw invalidInput(`${end}.table ${refusedTable}`, { field: `${end}.table` });
    const schema = urlSchema(workload[end].url);
    const refusedUrl = schema === null ? null : refusedSchema(schema);
    if (refusedUrl) throw invalidInput(`${end}.url ?schema= ${refusedUrl}`, { field: `${end}.url` });
  }
  workload.data.columns.forEach((column, index) => {
    const refused = refusedIdentifier(column);
    if (refused) throw invalidInput(`data.columns[${index}] ${refused}`, { field: `data.columns[${index}]` });
  });
}
