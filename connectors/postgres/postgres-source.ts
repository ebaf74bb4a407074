import { DponeError, ERROR_CODES } from '../../src/contracts/errors.ts';
import type {
  CellValue,
  Row,
  RowChunk,
  RowStream,
  SourceConnector,
  SourceReadRequest,
} from '../../src/ports/connector.ts';
import { DEFAULT_CHUNK_ROWS, checkSourceColumns, rowStream } from '../../src/ports/row-stream.ts';
import { parsePostgresUrl, quoteIdentifier, quoteTable } from './postgres-config.ts';
import { classifyPostgresError, needing, sqlstateOf } from './postgres-errors.ts';
import { PostgresSession } from './postgres-session.ts';
import { postgresOwnFlaws } from './postgres-unsafe-variants.ts';

const CURSOR = 'dpone_partition';
const CHUNK_ROWS = DEFAULT_CHUNK_ROWS;

export interface PostgresSourceOptions {
  readonly url: string;
  readonly password?: string;
  readonly table: string;
  readonly columns: readonly string[];
  /** Selects a harness-only unsafe variant (DPONE_HARNESS=1 + DPONE_UNSAFE_VARIANT); default process.env. */
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * Reads one partition of a PostgreSQL table as text values in the canonical forms the session
 * pins in its read transaction (postgres-settings.ts SESSION_SETTINGS), through a server-side cursor.
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
    checkSourceColumns(options.columns, 'a PostgreSQL source');
    const flaws = postgresOwnFlaws(options.env ?? process.env);
    return new PostgresSource(
      new PostgresSession(parsePostgresUrl(options.url, options.password, 'source.url', 'dpone-source'), {
        trustStartupParameters: flaws.trustsStartupParameters === true,
      }),
      options,
    );
  }

  /**
   * Opens a server-side cursor in a READ ONLY transaction (one snapshot for the whole read) and
   * fetches it chunk by chunk: the partition is never one result set in memory. The cursor is
   * declared here, so a missing table or column, a privilege or a partition value the column's
   * type cannot read fails the read before any mutation. Rows come in the server's scan order:
   * nothing reads the order, and a sort of a large partition costs time.
   */
  async read(request: SourceReadRequest): Promise<RowStream> {
    const columns = this.#options.columns;
    const table = this.#options.table;
    const list = columns.map((c) => `${quoteIdentifier(c)}::text`).join(', ');
    const sql =
      `DECLARE ${CURSOR} NO SCROLL CURSOR FOR SELECT ${list} FROM ${quoteTable(table)} ` +
      `WHERE ${quoteIdentifier(request.partitionColumn)} = $1`;
    const session = this.#session;
    try {
      await session.use(async (client) => {
        await session.begin(client, 'read-only');
        await needing(`SELECT on table ${table} (and USAGE on its schema)`, () =>
          client.query(sql, [request.partitionValue]),
        );
      });
    } catch (error) {
      throw readFailure(this.identity, error);
    }
    const identity = this.identity;
    const fetch = { text: `FETCH ${CHUNK_ROWS} FROM ${CURSOR}`, rowMode: 'array' } as const;
    const fetchChunk = () =>
      session.use(async (client) => (await client.query<CellValue[]>(fetch)).rows as Row[]);
    // One FETCH in flight while the consumer writes the chunk before it: the server produces the
    // next chunk while the target takes this one (memory: two chunks).
    let ahead: Promise<Row[]> | null = null;
    async function* chunks(): AsyncGenerator<RowChunk> {
      let next = fetchChunk();
      for (;;) {
        let rows: Row[];
        try {
          rows = await next;
        } catch (error) {
          throw readFailure(identity, error);
        }
        const more = rows.length === CHUNK_ROWS;
        if (more) {
          next = fetchChunk();
          ahead = next;
          next.catch(() => undefined); // read when awaited; a stream closed early drops it
        }
        if (rows.length > 0) yield rows;
        if (!more) return;
      }
    }
    // Ends the read transaction (and the cursor with it) once a FETCH still in flight is answered;
    // a connection that failed is gone already.
    const release = async () => {
      await ahead?.catch(() => undefined);
      await session
        .use((client) => client.query('ROLLBACK'))
        .then(
          () => undefined,
          () => undefined,
        );
    };
    return rowStream(columns, chunks, release);
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
