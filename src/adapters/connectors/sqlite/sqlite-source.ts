import { existsSync } from 'node:fs';
import { DponeError, ERROR_CODES } from '../../../contracts/errors.ts';
import type {
  CellValue,
  Row,
  RowStream,
  SourceConnector,
  SourceReadRequest,
} from '../../../ports/connector.ts';
import { chunked, rowStream } from '../../../ports/row-stream.ts';
import type { SqliteDatabase } from './sqlite-connection.ts';
import { openSqliteReadOnly, quoteIdentifier } from './sqlite-connection.ts';

/**
 * An INTEGER beyond ±2^53 cannot be a JS number without rounding (9007199254740993 would arrive as
 * …992): such a value travels as its exact decimal text, every other integer as a number.
 */
function exactIntegers(values: readonly unknown[]): Row {
  const out: CellValue[] = new Array<CellValue>(values.length);
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    out[i] =
      typeof value === 'bigint'
        ? value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
          ? Number(value)
          : value.toString()
        : (value as CellValue);
  }
  return out;
}

/**
 * A table or column the workload names that the source does not have: no retry can make it
 * appear, so it is OBJECT_NOT_FOUND (exit 32) naming the field, not a retryable read failure.
 */
function missingColumns(db: SqliteDatabase, table: string, columns: readonly string[]): void {
  const name = table.includes('.') ? table.slice(table.indexOf('.') + 1) : table;
  let found: Set<string>;
  try {
    const rows = db.prepare('SELECT name FROM pragma_table_info(?)').all(name);
    found = new Set(rows.map((row) => String(row.name)));
  } catch (error) {
    throw new DponeError(
      ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
      'the SQLite source could not be read',
      {},
      { cause: error },
    );
  }
  if (found.size === 0)
    throw new DponeError(ERROR_CODES.OBJECT_NOT_FOUND, `the SQLite source has no table ${table}`, {
      field: 'source.table',
    });
  const absent = columns.filter((column) => !found.has(column));
  if (absent.length > 0)
    throw new DponeError(
      ERROR_CODES.OBJECT_NOT_FOUND,
      `the SQLite source table ${table} has no column ${absent.join(', ')}`,
      { field: 'data.columns' },
    );
}

/** Reads one partition of a SQLite table, ordered by every column so two reads compare equal. */
export class SqliteSource implements SourceConnector {
  readonly identity: string;
  readonly #db: SqliteDatabase;
  readonly #table: string;
  readonly #columns: readonly string[];

  private constructor(db: SqliteDatabase, table: string, columns: readonly string[]) {
    this.#db = db;
    this.#table = table;
    this.#columns = columns;
    this.identity = `sqlite:${table}`;
  }

  /** Opens the source file; rejects with ENVIRONMENT_UNAVAILABLE when it cannot be opened. */
  static async open(path: string, table: string, columns: readonly string[]): Promise<SqliteSource> {
    if (columns.length === 0) {
      throw new DponeError(ERROR_CODES.INVALID_INPUT, 'a SQLite source needs at least one column', {
        field: 'data.columns',
      });
    }
    // Opening a missing file would create an empty database and hide the mistake.
    if (!existsSync(path)) {
      throw new DponeError(
        ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
        'the SQLite source database file does not exist',
        {
          field: 'source.url',
        },
      );
    }
    let db: SqliteDatabase;
    try {
      db = openSqliteReadOnly(path);
    } catch (error) {
      throw new DponeError(
        ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
        'the SQLite source could not be opened',
        {},
        {
          cause: error,
        },
      );
    }
    try {
      missingColumns(db, table, columns);
    } catch (error) {
      db.close();
      throw error;
    }
    return new SqliteSource(db, table, columns);
  }

  /**
   * Steps through the partition with one statement (SQLite's own cursor): nothing is read ahead
   * of the chunk being yielded. Rows come in the table's storage order: the target has no order
   * and the checker's parity digest is order-independent, so a sort would only cost time.
   */
  async read(request: SourceReadRequest): Promise<RowStream> {
    const list = this.#columns.map(quoteIdentifier).join(', ');
    const sql =
      `SELECT ${list} FROM ${quoteIdentifier(this.#table)} ` +
      `WHERE CAST(${quoteIdentifier(request.partitionColumn)} AS TEXT) = ?`;
    const failed = (error: unknown) =>
      new DponeError(
        ERROR_CODES.PRE_COMMIT_FAILED,
        `the SQLite source ${this.identity} could not be read`,
        {},
        { cause: error },
      );
    let rows: IterableIterator<unknown>;
    try {
      const statement = this.#db.prepare(sql);
      statement.setReadBigInts(true);
      statement.setReturnArrays(true);
      rows = statement.iterate(request.partitionValue);
    } catch (error) {
      throw failed(error);
    }
    function* exact(): Generator<Row> {
      try {
        for (const values of rows) yield exactIntegers(values as unknown[]);
      } catch (error) {
        throw failed(error);
      }
    }
    return rowStream(
      this.#columns,
      () => chunked(exact()),
      () => void rows.return?.(),
    );
  }

  async close(): Promise<void> {
    if (this.#db.isOpen) this.#db.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
