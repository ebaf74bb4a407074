import type { CellValue, RowStream } from '../../src/ports/connector.ts';
import { quoteIdentifier, quoteTable } from './mssql-connector-config.ts';
import type { MssqlFence } from './mssql-fence.ts';
import type { MssqlPool, MssqlRequest, MssqlTable } from './mssql-session.ts';
import { MSSQL_ERRORS, bind, mssqlErrorNumber } from './mssql-session.ts';

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

/** How a bulk load is built and sent: a table of rows for the target, and a request in the transaction. */
export interface BulkLoad {
  readonly newTable: (name: string) => MssqlTable;
  readonly newRequest: () => MssqlRequest;
  /** The NVARCHAR(MAX) type, as the driver spells it. */
  readonly textType: unknown;
}

/**
 * Inserts the stream with the bulk-load API, one `INSERT BULK` per chunk (memory stays a chunk);
 * the caller owns the transaction. Every column is NVARCHAR(MAX), as the target's DDL makes it.
 * Returns the rows the server reports loaded.
 */
export async function insertRows(load: BulkLoad, table: string, rows: RowStream): Promise<number> {
  const width = rows.columns.length;
  if (width === 0) return 0;
  let written = 0;
  for await (const chunk of rows) {
    if (chunk.length === 0) continue;
    const bulk = load.newTable(quoteTable(table));
    bulk.create = false;
    for (const column of rows.columns) bulk.columns.add(column, load.textType, { nullable: true });
    for (const row of chunk) {
      const values: (string | null)[] = new Array<string | null>(width);
      for (let c = 0; c < width; c++) values[c] = text(row[c]);
      bulk.rows.add(...values);
    }
    written += (await load.newRequest().bulk(bulk)).rowsAffected;
  }
  return written;
}
