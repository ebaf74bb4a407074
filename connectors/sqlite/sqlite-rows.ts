import type { CellValue, RowStream } from '../../src/ports/connector.ts';
import type { SqliteDatabase, SqliteParam, SqliteStatement } from './sqlite-connection.ts';
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
 * Rows one INSERT carries: node:sqlite pays per statement run, so a statement of many rows costs
 * far less per row than one per row. Within the 999 parameters even an old SQLite build takes.
 */
export function rowsPerInsert(width: number): number {
  return Math.max(1, Math.min(500, Math.floor(999 / width)));
}

/**
 * Inserts every row of the stream with one prepared multi-row INSERT (plus one for a chunk's
 * remainder), chunk by chunk; the caller owns the transaction. Returns the rows written.
 */
export async function insertRows(db: SqliteDatabase, table: string, rows: RowStream): Promise<number> {
  const width = rows.columns.length;
  const per = rowsPerInsert(width);
  const head = `INSERT INTO ${quoteIdentifier(table)} (${rows.columns.map(quoteIdentifier).join(', ')}) VALUES `;
  const tuple = `(${rows.columns.map(() => '?').join(', ')})`;
  const prepared = new Map<number, SqliteStatement>();
  const insert = (count: number): SqliteStatement => {
    let statement = prepared.get(count);
    if (statement === undefined) {
      statement = db.prepare(head + Array.from({ length: count }, () => tuple).join(', '));
      prepared.set(count, statement);
    }
    return statement;
  };
  const values: SqliteParam[] = new Array<SqliteParam>(per * width);
  // A typed stream's numbers are REALs (its integers are bigints): bound as they are.
  const bind = rows.numbers === 'typed' ? (value: CellValue) => value as SqliteParam : bindCell;
  let written = 0;
  for await (const chunk of rows) {
    for (let start = 0; start < chunk.length; start += per) {
      const count = Math.min(per, chunk.length - start);
      let k = 0;
      for (let r = start; r < start + count; r++) {
        const row = chunk[r]!;
        for (let c = 0; c < width; c++) values[k++] = bind(row[c] ?? null);
      }
      insert(count).run(...(count === per ? values : values.slice(0, k)));
    }
    written += chunk.length;
  }
  return written;
}
