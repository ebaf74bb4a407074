import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { DponeError, ERROR_CODES } from '../../src/contracts/errors.ts';
import type {
  RowChunk,
  RowOrigin,
  RowStream,
  SourceConnector,
  SourceReadRequest,
} from '../../src/ports/connector.ts';
import { DEFAULT_CHUNK_ROWS, checkSourceColumns, rowStream } from '../../src/ports/row-stream.ts';
import { partitionChunks } from './sqlite-chunks.ts';
import type { SqliteDatabase } from './sqlite-connection.ts';
import { openSqliteReadOnly, openedOr } from './sqlite-connection.ts';

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

/** Reads one partition of a SQLite table, chunk by chunk. */
export class SqliteSource implements SourceConnector {
  readonly identity: string;
  readonly #db: SqliteDatabase;
  readonly #table: string;
  readonly #columns: readonly string[];
  /** The file's absolute path, for a SQLite target's engine copy (RowStream.origin). */
  readonly #path: string;

  private constructor(db: SqliteDatabase, path: string, table: string, columns: readonly string[]) {
    this.#db = db;
    this.#path = resolve(path);
    this.#table = table;
    this.#columns = columns;
    this.identity = `sqlite:${table}`;
  }

  /** Opens the source file; rejects with ENVIRONMENT_UNAVAILABLE when it cannot be opened. */
  static async open(path: string, table: string, columns: readonly string[]): Promise<SqliteSource> {
    checkSourceColumns(columns, 'a SQLite source');
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
    const db = openedOr(
      () => openSqliteReadOnly(path),
      ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
      'the SQLite source could not be opened',
    );
    try {
      missingColumns(db, table, columns);
    } catch (error) {
      db.close();
      throw error;
    }
    return new SqliteSource(db, path, table, columns);
  }

  /**
   * Reads the partition chunk by chunk in one read transaction (see sqlite-chunks.ts): nothing is
   * read ahead of the chunk being yielded. Rows come in the table's storage order: the target has
   * no order and the checker's parity digest is order-independent, so a sort would only cost time.
   */
  async read(request: SourceReadRequest): Promise<RowStream> {
    const failed = (error: unknown) =>
      new DponeError(
        ERROR_CODES.PRE_COMMIT_FAILED,
        `the SQLite source ${this.identity} could not be read`,
        {},
        { cause: error },
      );
    let opened: ReturnType<typeof partitionChunks>;
    try {
      opened = partitionChunks(this.#db, {
        table: this.#table,
        columns: this.#columns,
        partitionColumn: request.partitionColumn,
        partitionValue: request.partitionValue,
        size: DEFAULT_CHUNK_ROWS,
      });
    } catch (error) {
      throw failed(error);
    }
    function* chunks(): Generator<RowChunk> {
      try {
        yield* opened.chunks;
      } catch (error) {
        throw failed(error);
      }
    }
    return Object.assign(rowStream(this.#columns, chunks, opened.release), {
      numbers: 'typed' as const,
      ...(this.#table.includes('.') ? {} : { origin: this.#origin(request) }),
    });
  }

  /**
   * Where the partition's rows are, so a SQLite target can copy them itself (ATTACH and
   * INSERT … SELECT, sqlite-copy.ts) instead of taking them through this stream. Offered for a
   * plain table name only (a schema-qualified one would name a schema of this connection).
   */
  #origin(request: SourceReadRequest): RowOrigin {
    return {
      engine: 'sqlite',
      location: this.#path,
      table: this.#table,
      partitionColumn: request.partitionColumn,
      partitionValue: request.partitionValue,
    };
  }

  async close(): Promise<void> {
    if (this.#db.isOpen) this.#db.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
