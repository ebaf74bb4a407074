import { ERROR_CODES, codedOr } from '../../src/contracts/errors.ts';
import type { CellValue, RowStream, SourceConnector, SourceReadRequest } from '../../src/ports/connector.ts';
import { checkSourceColumns, rowStreamOf } from '../../src/ports/row-stream.ts';
import { parseMssqlConnectorUrl, quoteIdentifier, quoteTable } from './mssql-connector-config.ts';
import type { LoadMssqlDriver } from './mssql-session.ts';
import { MssqlSession, bind } from './mssql-session.ts';

export interface MssqlSourceOptions {
  /** `mssql://user@host:port/database?encrypt=&trustServerCertificate=` (no password in it). */
  readonly url: string;
  /** From the environment variable the workload names; never from the URL. */
  readonly password?: string;
  readonly table: string;
  readonly columns: readonly string[];
  /** Unit tests hand in a fake of the driver slice; default: the real `mssql` driver. */
  readonly loadDriver?: LoadMssqlDriver;
}

/** The SELECT of one partition: every column as text, ordered by every column so two reads compare equal. */
export function partitionSelectSql(
  table: string,
  columns: readonly string[],
  partitionColumn: string,
): string {
  const asText = (c: string) => `CAST(${quoteIdentifier(c)} AS NVARCHAR(MAX))`;
  return (
    `SELECT ${columns.map((c) => `${asText(c)} AS ${quoteIdentifier(c)}`).join(', ')} ` +
    `FROM ${quoteTable(table)} WHERE ${asText(partitionColumn)} = @partition_value ` +
    `ORDER BY ${columns.map(asText).join(', ')}`
  );
}

/** Reads one partition of a SQL Server table as text values. Connects on first read. */
export class MssqlSource implements SourceConnector {
  readonly identity: string;
  readonly #session: MssqlSession;
  readonly #options: MssqlSourceOptions;

  private constructor(session: MssqlSession, options: MssqlSourceOptions) {
    this.#session = session;
    this.#options = options;
    this.identity = `mssql:${options.table}`;
  }

  /** Validates the URL and columns; no I/O until the first read. */
  static async open(options: MssqlSourceOptions): Promise<MssqlSource> {
    checkSourceColumns(options.columns, 'an MSSQL source');
    const config = parseMssqlConnectorUrl(options.url, options.password, 'source.url', 'dpone-source');
    return new MssqlSource(new MssqlSession(config, options.loadDriver), options);
  }

  async read(request: SourceReadRequest): Promise<RowStream> {
    const { columns, table } = this.#options;
    return codedOr(
      async () => {
        const sql = partitionSelectSql(table, columns, request.partitionColumn);
        const result = await this.#session.use((pool) =>
          bind(pool.request(), { partition_value: request.partitionValue }).query(sql),
        );
        const rows = (result.recordset ?? []).map((row) =>
          columns.map((column) => (row[column] ?? null) as CellValue),
        );
        return rowStreamOf(columns, rows);
      },
      ERROR_CODES.PRE_COMMIT_FAILED,
      `the MSSQL source ${this.identity} could not be read`,
    );
  }

  async close(): Promise<void> {
    await this.#session.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}
