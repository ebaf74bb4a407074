import type { SourceBatch } from '../../../ports/connector.ts';
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

/** Inserts every row of the batch; the caller owns the transaction. Returns the rows written. */
export function insertRows(db: SqliteDatabase, table: string, batch: SourceBatch): number {
  const columns = batch.columns.map(quoteIdentifier).join(', ');
  const marks = batch.columns.map(() => '?').join(', ');
  const insert = db.prepare(`INSERT INTO ${quoteIdentifier(table)} (${columns}) VALUES (${marks})`);
  for (const row of batch.rows) {
    insert.run(...batch.columns.map((column) => bindCell(row[column] ?? null)));
  }
  return batch.rows.length;
}
