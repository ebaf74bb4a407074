import type { CellValue, RowStream } from '../../../ports/connector.ts';
import { quoteIdentifier, quoteTable } from './mssql-connector-config.ts';
import type { MssqlFence } from './mssql-fence.ts';
import type { MssqlPool, MssqlRequest } from './mssql-session.ts';
import { MSSQL_ERRORS, bind, mssqlErrorNumber } from './mssql-session.ts';

/**
 * SQL Server refuses a request with more than 2100 parameters, and sp_executesql (which the driver
 * sends) spends two of them on the statement and its declaration: stay well below.
 */
export const MAX_PARAMETERS_PER_STATEMENT = 2000;
/** A table value constructor (`VALUES (…), (…)`) takes at most 1000 rows. */
export const MAX_ROWS_PER_VALUES = 1000;

/** Rows one INSERT carries for a batch of `width` columns. */
export function rowsPerStatement(width: number): number {
  return Math.max(1, Math.min(MAX_ROWS_PER_VALUES, Math.floor(MAX_PARAMETERS_PER_STATEMENT / width)));
}

/** The target table's DDL: NVARCHAR(MAX) columns and deliberately no key, so a replay shows as duplicates. */
export function targetTableDdl(table: string, columns: readonly string[]): string {
  const list = columns.map((c) => `${quoteIdentifier(c)} NVARCHAR(MAX) NULL`).join(', ');
  return `IF OBJECT_ID(@table_name, N'U') IS NULL CREATE TABLE ${quoteTable(table)} (${list})`;
}

/** Creates the fence table and, when missing, the target table; a concurrent creator's win is fine. */
export async function ensureTargetTables(
  pool: MssqlPool,
  fence: MssqlFence,
  table: string,
  columns: readonly string[],
): Promise<void> {
  const statements: [string, Record<string, unknown>][] = [
    ...fence.ddl.map((ddl): [string, Record<string, unknown>] => [ddl, {}]),
    [targetTableDdl(table, columns), { table_name: quoteTable(table) }],
  ];
  for (const [ddl, params] of statements) {
    await bind(pool.request(), params)
      .query(ddl)
      .catch((error: unknown) => {
        if (mssqlErrorNumber(error) !== MSSQL_ERRORS.objectExists) throw error;
      });
  }
}

/** Deletes one partition's rows (replace-partition); values compare as text, as the request carries them. */
export async function deletePartition(
  request: MssqlRequest,
  table: string,
  column: string,
  value: string,
): Promise<number> {
  const result = await bind(request, { partition_value: value }).query(
    `DELETE FROM ${quoteTable(table)} WHERE CAST(${quoteIdentifier(column)} AS NVARCHAR(MAX)) = @partition_value`,
  );
  return result.rowsAffected[0] ?? 0;
}

/** Values are stored as text; a number keeps its JavaScript spelling, whatever the server's float format. */
function text(value: CellValue | undefined): string | null {
  return value === undefined || value === null ? null : String(value);
}

/**
 * Inserts the stream with multi-row INSERTs of bound parameters (`@p0`, `@p1`, …), each within the
 * parameter and row limits; the caller owns the transaction and passes a request per statement.
 * Returns the rows written.
 */
export async function insertRows(
  newRequest: () => MssqlRequest,
  table: string,
  rows: RowStream,
): Promise<number> {
  const width = rows.columns.length;
  if (width === 0) return 0;
  const perStatement = rowsPerStatement(width);
  const head = `INSERT INTO ${quoteTable(table)} (${rows.columns.map(quoteIdentifier).join(', ')}) VALUES `;
  let written = 0;
  for await (const chunk of rows) {
    for (let start = 0; start < chunk.length; start += perStatement) {
      const slice = chunk.slice(start, start + perStatement);
      const request = newRequest();
      const tuples = slice.map((row, r) => {
        const names = row.map((value, c) => {
          const name = `p${r * width + c}`;
          request.input(name, text(value));
          return `@${name}`;
        });
        return `(${names.join(', ')})`;
      });
      await request.query(head + tuples.join(', '));
    }
    written += chunk.length;
  }
  return written;
}
