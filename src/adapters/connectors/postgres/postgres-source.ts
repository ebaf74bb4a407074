import { DponeError, ERROR_CODES } from '../../../contracts/errors.ts';
import type { CellValue, RowStream, SourceConnector, SourceReadRequest } from '../../../ports/connector.ts';
import { rowStreamOf } from '../../../ports/row-stream.ts';
import { parsePostgresUrl, quoteIdentifier, quoteTable } from './postgres-config.ts';
import { classifyPostgresError, needing, sqlstateOf } from './postgres-errors.ts';
import { PostgresSession } from './postgres-session.ts';

export interface PostgresSourceOptions {
  readonly url: string;
  readonly password?: string;
  readonly table: string;
  readonly columns: readonly string[];
}

/**
 * Reads one partition of a PostgreSQL table as text values in the canonical forms the session
 * pins (postgres-config.ts SESSION_SETTINGS), ordered by every column so two reads compare equal.
 * The partition value is compared in the column's own type (the server types the parameter from
 * the column), so a date matches as a date, not as one spelling of it. Connects on first read.
 */
export class PostgresSource implements SourceConnector {
  readonly identity: string;
  readonly #session: PostgresSession;
  readonly #options: PostgresSourceOptions;

  private constructor(session: PostgresSession, options: PostgresSourceOptions) {
    this.#session = session;
    this.#options = options;
    this.identity = `postgres:${options.table}`;
  }

  static async open(options: PostgresSourceOptions): Promise<PostgresSource> {
    if (options.columns.length === 0) {
      throw new DponeError(ERROR_CODES.INVALID_INPUT, 'a PostgreSQL source needs at least one column', {
        field: 'data.columns',
      });
    }
    return new PostgresSource(
      new PostgresSession(parsePostgresUrl(options.url, options.password, 'source.url', 'dpone-source')),
      options,
    );
  }

  async read(request: SourceReadRequest): Promise<RowStream> {
    const columns = this.#options.columns;
    const table = this.#options.table;
    const list = columns.map((c) => `${quoteIdentifier(c)}::text AS ${quoteIdentifier(c)}`).join(', ');
    const order = columns.map((c) => `${quoteIdentifier(c)}::text`).join(', ');
    const sql =
      `SELECT ${list} FROM ${quoteTable(table)} ` +
      `WHERE ${quoteIdentifier(request.partitionColumn)} = $1 ORDER BY ${order}`;
    try {
      const result = await this.#session.use((client) =>
        needing(`SELECT on table ${table} (and USAGE on its schema)`, () =>
          client.query(sql, [request.partitionValue]),
        ),
      );
      return rowStreamOf(
        columns,
        result.rows.map((row) => columns.map((column) => (row[column] ?? null) as CellValue)),
      );
    } catch (error) {
      throw readFailure(this.identity, error);
    }
  }

  async close(): Promise<void> {
    await this.#session.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

/** A read failure by cause; a partition value the column's type cannot take is the workload's mistake. */
function readFailure(identity: string, error: unknown): DponeError {
  const sqlstate = sqlstateOf(error);
  if (sqlstate?.startsWith('22')) {
    return new DponeError(
      ERROR_CODES.INVALID_INPUT,
      "data.partition.value is not a value of the partition column's type",
      {
        field: 'data.partition.value',
        sqlstate,
        hint: 'write the value as the column type reads it, e.g. a date as YYYY-MM-DD',
      },
      { cause: error },
    );
  }
  return classifyPostgresError(
    error,
    'source',
    (fields) =>
      new DponeError(
        ERROR_CODES.PRE_COMMIT_FAILED,
        `the PostgreSQL source ${identity} could not be read`,
        fields,
        { cause: error },
      ),
  );
}
