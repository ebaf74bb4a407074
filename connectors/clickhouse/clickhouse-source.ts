import { ERROR_CODES, codedOr } from '../../src/contracts/errors.ts';
import type {
  CellValue,
  Row,
  RowStream,
  SourceConnector,
  SourceReadRequest,
} from '../../src/ports/connector.ts';
import { checkSourceColumns, rowStreamOf } from '../../src/ports/row-stream.ts';
import { checkTableName, parseClickHouseUrl, quoteName, quoteString } from './clickhouse-config.ts';
import type { ClickHouseSql } from './clickhouse-session.ts';
import { openClickHouseSql } from './clickhouse-session.ts';

export interface ClickHouseSourceOptions {
  readonly url: string;
  readonly password?: string;
  readonly table: string;
  readonly columns: readonly string[];
  readonly sql?: ClickHouseSql;
}

/** The alias the text of the `index`-th column is read under (never a column's own name). */
const textAlias = (index: number) => `_dpone_text_${index}`;

function asText(row: Record<string, CellValue>, columns: readonly string[]): Row {
  return columns.map((_, index) => {
    const value = row[textAlias(index)] ?? null;
    return value === null ? null : String(value);
  });
}

/**
 * Reads one partition of a ClickHouse table, every value as the server's text (NULL kept; a
 * Decimal or a 64-bit integer exact), ordered by every
 * column so two reads compare equal. Connects lazily: the driver opens sockets on first query.
 */
export class ClickHouseSource implements SourceConnector {
  readonly identity: string;
  readonly #sql: ClickHouseSql;
  readonly #options: ClickHouseSourceOptions;

  private constructor(sql: ClickHouseSql, options: ClickHouseSourceOptions) {
    this.#sql = sql;
    this.#options = options;
    this.identity = `clickhouse:${options.table}`;
  }

  static async open(options: ClickHouseSourceOptions): Promise<ClickHouseSource> {
    checkSourceColumns(options.columns, 'a ClickHouse source');
    checkTableName(options.table, 'source.table');
    const sql =
      options.sql ??
      (await openClickHouseSql(parseClickHouseUrl(options.url, options.password, 'source.url')));
    return new ClickHouseSource(sql, options);
  }

  async read(request: SourceReadRequest): Promise<RowStream> {
    const columns = this.#options.columns;
    const list = columns.map(quoteName).join(', ');
    // Each value as the server's own text: JSON carries a Decimal as a bare number, which the
    // client parses into a double (-123456789012.345678 would arrive as …34568).
    const texts = columns.map((c, i) => `toString(${quoteName(c)}) AS ${textAlias(i)}`).join(', ');
    const sql =
      `SELECT ${texts} FROM ${quoteName(this.#options.table)} ` +
      `WHERE toString(${quoteName(request.partitionColumn)}) = ${quoteString(request.partitionValue)} ORDER BY ${list}`;
    return codedOr(
      async () => {
        const rows = await this.#sql.rows<Record<string, CellValue>>(sql);
        return rowStreamOf(
          columns,
          rows.map((row) => asText(row, columns)),
        );
      },
      ERROR_CODES.PRE_COMMIT_FAILED,
      `the ClickHouse source ${this.identity} could not be read`,
    );
  }

  async close(): Promise<void> {
    await this.#sql.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
