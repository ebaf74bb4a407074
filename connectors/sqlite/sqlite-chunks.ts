import type { Row, RowChunk } from '../../src/ports/connector.ts';
import type { SqliteDatabase, SqliteStatement } from './sqlite-connection.ts';
import { quoteIdentifier } from './sqlite-connection.ts';

/**
 * How a SQLite source steps through one partition, chunk by chunk. node:sqlite pays per row for
 * each step of an iterator (`iterate()`), much less per row for a whole chunk (`all()`), so a
 * table with a rowid is read by rowid ranges: each chunk is one `all()` of at most `size` rows
 * after the last rowid seen, in rowid order (the table's own storage order: no sort). All chunks
 * come from one read transaction, hence one snapshot. A WITHOUT ROWID table or a view is stepped
 * through with `iterate()`.
 */
export interface PartitionRead {
  readonly table: string;
  readonly columns: readonly string[];
  readonly partitionColumn: string;
  readonly partitionValue: string;
  readonly size: number;
}

/**
 * Values as SQLite stored them: every INTEGER read as a bigint (exact beyond ±2^53, and told apart
 * from a REAL with no fraction, which stays a JS number), TEXT as a string, BLOB as bytes. The
 * stream says so (`RowStream.numbers: 'typed'`), so a SQLite target keeps each value's storage class.
 */
export function exactIntegers(values: readonly unknown[], from = 0): Row {
  return (from === 0 ? values : values.slice(from)) as Row;
}

const ROWID_NAMES = ['rowid', '_rowid_', 'oid'];

/**
 * A name that reaches the table's rowid (not shadowed by a column), or null when it has none.
 * `schema.table` looks in that schema only (an attached source beside a target of the same name).
 */
export function rowidName(db: SqliteDatabase, table: string): string | null {
  const dot = table.indexOf('.');
  const name = dot >= 0 ? table.slice(dot + 1) : table;
  const info =
    dot >= 0
      ? db.prepare('SELECT name FROM pragma_table_info(?, ?)').all(name, table.slice(0, dot))
      : db.prepare('SELECT name FROM pragma_table_info(?)').all(name);
  const columns = new Set(info.map((row) => String(row.name).toLowerCase()));
  for (const candidate of ROWID_NAMES) {
    if (columns.has(candidate)) continue; // a column of that name shadows the rowid
    try {
      db.prepare(`SELECT ${candidate} FROM ${quoteIdentifier(table)} LIMIT 0`);
      return candidate;
    } catch {
      return null; // WITHOUT ROWID, or a view
    }
  }
  return null;
}

/** Rows as arrays, every INTEGER as a bigint (a plain read gives REAL 20.0 and INTEGER 20 the same number). */
function arrays(statement: SqliteStatement): SqliteStatement {
  statement.setReturnArrays(true);
  statement.setReadBigInts(true);
  return statement;
}

/** Prepares the rowid-range reads (the first chunk, and every chunk after a rowid). */
function rowidStatements(db: SqliteDatabase, read: PartitionRead, rowid: string): SqliteStatement[] {
  const list = read.columns.map(quoteIdentifier).join(', ');
  const where = `CAST(${quoteIdentifier(read.partitionColumn)} AS TEXT) = ?`;
  return [false, true].map((after) =>
    arrays(
      db.prepare(
        `SELECT ${rowid}, ${list} FROM ${quoteIdentifier(read.table)} WHERE ${after ? `${rowid} > ? AND ` : ''}` +
          `${where} ORDER BY ${rowid} LIMIT ${read.size}`,
      ),
    ),
  );
}

/** Rows by rowid ranges; each row's first value is its rowid, dropped from what is yielded. */
function* byRowid(statements: SqliteStatement[], read: PartitionRead): Generator<RowChunk> {
  let last: unknown = null;
  for (;;) {
    const params = last === null ? [read.partitionValue] : [last, read.partitionValue];
    const rows = statements[last === null ? 0 : 1]!.all(...(params as [])) as unknown as unknown[][];
    if (rows.length === 0) return;
    last = rows[rows.length - 1]![0];
    yield rows.map((row) => exactIntegers(row, 1));
    if (rows.length < read.size) return;
  }
}

/** Rows stepped one by one (no rowid to range over), every integer read exactly. */
function* stepped(statement: SqliteStatement, read: PartitionRead): Generator<RowChunk> {
  let chunk: Row[] = [];
  for (const values of statement.iterate(read.partitionValue)) {
    chunk.push(exactIntegers(values as unknown[]));
    if (chunk.length >= read.size) {
      yield chunk;
      chunk = [];
    }
  }
  if (chunk.length > 0) yield chunk;
}

function steppedStatement(db: SqliteDatabase, read: PartitionRead): SqliteStatement {
  const list = read.columns.map(quoteIdentifier).join(', ');
  const sql =
    `SELECT ${list} FROM ${quoteIdentifier(read.table)} ` +
    `WHERE CAST(${quoteIdentifier(read.partitionColumn)} AS TEXT) = ?`;
  return arrays(db.prepare(sql));
}

/**
 * Opens the read transaction and prepares the partition's statements (so a bad name fails here);
 * `release` ends the transaction. The caller iterates `chunks` once.
 */
export function partitionChunks(
  db: SqliteDatabase,
  read: PartitionRead,
): { readonly chunks: Generator<RowChunk>; readonly release: () => void } {
  const rowid = rowidName(db, read.table);
  db.exec('BEGIN');
  let open = true;
  const release = () => {
    if (!open) return;
    open = false;
    try {
      db.exec('COMMIT');
    } catch {
      // The connection is gone or the transaction ended with it: nothing is held.
    }
  };
  try {
    const chunks =
      rowid === null
        ? stepped(steppedStatement(db, read), read)
        : byRowid(rowidStatements(db, read, rowid), read);
    return { chunks, release };
  } catch (error) {
    release();
    throw error;
  }
}
