import type { RowStream } from '../../../ports/connector.ts';
import type { SqliteDatabase } from './sqlite-connection.ts';
import { bindCell, quoteIdentifier } from './sqlite-connection.ts';

/**
 * Creates the target table when it is missing. Columns carry no declared type, so each value keeps
 * the type it was written with, and there is deliberately no unique key: a replayed mutation must
 * show up as duplicate rows for the checker.
 */
export function ensureTargetTable(db: SqliteDatabase, table: string, columns: readonly string[]): void {
  const list = columns.map(quoteIdentifier).join(', ');
  db.exec(`CREATE TABLE IF NOT EXISTS ${quoteIdentifier(table)} (${list})`);
}

/** Deletes one partition's rows (replace-partition); values compare as text, as the request carries them. */
export function deletePartition(
  db: SqliteDatabase,
  table: string,
  partitionColumn: string,
  partitionValue: string,
): number {
  const sql = `DELETE FROM ${quoteIdentifier(table)} WHERE CAST(${quoteIdentifier(partitionColumn)} AS TEXT) = ?`;
  return Number(db.prepare(sql).run(partitionValue).changes);
}

/**
 * Inserts every row of the stream with one prepared statement, chunk by chunk; the caller owns
 * the transaction. Returns the rows written.
 */
export async function insertRows(db: SqliteDatabase, table: string, rows: RowStream): Promise<number> {
  const columns = rows.columns.map(quoteIdentifier).join(', ');
  const marks = rows.columns.map(() => '?').join(', ');
  const insert = db.prepare(`INSERT INTO ${quoteIdentifier(table)} (${columns}) VALUES (${marks})`);
  let written = 0;
  for await (const chunk of rows) {
    for (const row of chunk) insert.run(...row.map(bindCell));
    written += chunk.length;
  }
  return written;
}
