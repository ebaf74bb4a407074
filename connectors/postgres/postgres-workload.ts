import { invalidInput } from '../../src/contracts/errors.ts';
import { refusedIdentifier, refusedSchema, refusedTableName } from './postgres-names.ts';
import type { Workload } from '../../src/contracts/workload.ts';

/**
 * A column type as written in `target.create.columns`: a type name (several words allowed, e.g.
 * `double precision`, `timestamp with time zone`, `dw.money_code`), an optional modifier such as
 * `(12,2)` and array brackets. Nothing else reaches the DDL: no quotes, semicolons or comments.
 */
const COLUMN_TYPE =
  /^[A-Za-z_][A-Za-z0-9_.]*( [A-Za-z_][A-Za-z0-9_]*)*( ?\(\d+( ?, ?\d+)?\))?( [A-Za-z]+)*(\[\])*$/;

/** The column types `target.create.columns` may give on a PostgreSQL target (WorkloadRules.createColumnType). */
export const POSTGRES_CREATE_COLUMN = {
  test: (type: string): boolean => COLUMN_TYPE.test(type),
  expected: 'a PostgreSQL type such as bigint, date, numeric(12,2) or text',
} as const;

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
