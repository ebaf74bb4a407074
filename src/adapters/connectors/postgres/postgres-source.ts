import { DponeError, ERROR_CODES } from '../../../contracts/errors.ts';
import type {
  CellValue,
  Row,
  SourceBatch,
  SourceConnector,
  SourceReadRequest,
} from '../../../ports/connector.ts';
import { parsePostgresUrl, quoteIdentifier, quoteTable } from './postgres-config.ts';
import { PostgresSession } from './postgres-session.ts';

export interface PostgresSourceOptions {
  readonly url: string;
  readonly password?: string;
  readonly table: string;
  readonly columns: readonly string[];
}

/**
 * Reads one partition of a PostgreSQL table as text values, ordered by every column so two reads
 * compare equal. Connects on first read.
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

  async read(request: SourceReadRequest): Promise<SourceBatch> {
    const columns = this.#options.columns;
    const list = columns.map((c) => `${quoteIdentifier(c)}::text AS ${quoteIdentifier(c)}`).join(', ');
    const order = columns.map((c) => `${quoteIdentifier(c)}::text`).join(', ');
    const sql =
      `SELECT ${list} FROM ${quoteTable(this.#options.table)} ` +
      `WHERE ${quoteIdentifier(request.partitionColumn)}::text = $1 ORDER BY ${order}`;
    try {
      const result = await this.#session.use((client) => client.query(sql, [request.partitionValue]));
      return { columns, rows: result.rows.map((row) => ({ ...(row as Record<string, CellValue>) }) as Row) };
    } catch (error) {
      throw new DponeError(
        ERROR_CODES.PRE_COMMIT_FAILED,
        `the PostgreSQL source ${this.identity} could not be read`,
        {},
        { cause: error },
      );
    }
  }

  async close(): Promise<void> {
    await this.#session.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
