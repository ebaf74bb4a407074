import { DponeError, ERROR_CODES } from '../../src/contracts/errors.ts';
import { to as copyTo } from 'pg-copy-streams';
import type {
  CellValue,
  NativeRows,
  Row,
  RowChunk,
  RowStream,
  SourceConnector,
  SourceReadRequest,
} from '../../src/ports/connector.ts';
import { DEFAULT_CHUNK_ROWS, checkSourceColumns, rowStream } from '../../src/ports/row-stream.ts';
import { parsePostgresUrl, quoteIdentifier, quoteTable } from './postgres-config.ts';
import { BINARY_COPY, NO_QUERY_TIMEOUT, columnTypes, within } from './postgres-copy.ts';
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
  /** Offers the partition as binary COPY too (not under `trusts-startup-parameters`: its flaw is in the text forms). */
  readonly #binaryCopy: boolean;

  private constructor(session: PostgresSession, options: PostgresSourceOptions, binaryCopy: boolean) {
    this.#session = session;
    this.#options = options;
    this.#binaryCopy = binaryCopy;
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
      flaws.trustsStartupParameters !== true,
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
    const native = this.#binaryCopy ? this.#native(request) : undefined;
    const fetch = (rows: number) => ({ text: `FETCH ${rows} FROM ${CURSOR}`, rowMode: 'array' }) as const;
    const fetchChunk = (size: number) =>
      session.use(async (client) => (await client.query<CellValue[]>(fetch(size))).rows as Row[]);
    // One FETCH in flight while the consumer writes the chunk before it: the server produces the
    // next chunk while the target takes this one (memory: two chunks). Where the partition is also
    // offered as binary COPY (`native`), the first FETCH takes one row and nothing is read ahead of
    // it: a wrapper that only looks at the first rows (empty-partition.ts) decodes one row, and a
    // target that takes the COPY instead finds the connection free.
    let ahead: Promise<Row[]> | null = null;
    async function* chunks(): AsyncGenerator<RowChunk> {
      let size = native ? 1 : CHUNK_ROWS;
      let next: Promise<Row[]> | null = fetchChunk(size);
      for (;;) {
        let rows: Row[];
        try {
          rows = await (next ?? fetchChunk(size));
        } catch (error) {
          throw readFailure(identity, error);
        }
        const more = rows.length === size;
        next = null;
        if (more && !(native && size === 1)) {
          next = fetchChunk(CHUNK_ROWS);
          ahead = next;
          next.catch(() => undefined); // read when awaited; a stream closed early drops it
        }
        size = CHUNK_ROWS;
        if (rows.length > 0) yield rows;
        if (!more) return;
      }
    }
    // Ends the read transaction (and the cursor with it) once a FETCH still in flight is answered;
    // a connection that failed is gone already. A binary COPY that did not run to its end holds
    // the connection: it is dropped instead (the server ends the read).
    const release = async () => {
      await ahead?.catch(() => undefined);
      if (native?.abandoned()) {
        session.discard();
        return;
      }
      await session
        .use((client) => client.query('ROLLBACK'))
        .then(
          () => undefined,
          () => undefined,
        );
    };
    const stream = rowStream(columns, chunks, release);
    return native ? Object.assign(stream, { native: native.rows }) : stream;
  }

  /**
   * The partition as `COPY (SELECT …) TO STDOUT (FORMAT binary)` in the read's transaction, for a
   * PostgreSQL target whose column types match (postgres-copy.ts copyBinary). The partition value
   * goes in as a literal the column's type reads (a COPY takes no parameters); the DECLARE checked
   * it already. The statement bound is lifted for the COPY and every chunk's wait bounded by the
   * connection's query timeout instead (as the target's COPY); a stall drops the connection.
   */
  #native(request: SourceReadRequest): { rows: NativeRows; abandoned: () => boolean } {
    const session = this.#session;
    const { table, columns } = this.#options;
    const identity = this.identity;
    let state: 'idle' | 'copying' | 'done' = 'idle';
    let settle = () => undefined as void;
    const rows: NativeRows = {
      format: BINARY_COPY,
      columnTypes: () => session.use((client) => columnTypes(client, table, columns)),
      open: () =>
        session.use(async (client) => {
          if (state !== 'idle') throw new Error('dpone: a binary COPY of the source opens once');
          state = 'copying';
          const select =
            `SELECT ${columns.map(quoteIdentifier).join(', ')} FROM ${quoteTable(table)} ` +
            `WHERE ${quoteIdentifier(request.partitionColumn)} = ${client.escapeLiteral(request.partitionValue)}`;
          await client.query('SET LOCAL statement_timeout = 0');
          // The driver arms its per-query timer (lifted here) and clears it in the query's
          // callback, which a COPY TO stream never calls: it is called at the end, and on any
          // other way out (settle), else the timer would hold the process open.
          const query = Object.assign(copyTo(`COPY (${select}) TO STDOUT (FORMAT binary)`), {
            query_timeout: NO_QUERY_TIMEOUT,
            callback: () => undefined,
          });
          const out = client.query(query);
          settle = () => query.callback();
          const stallMs = session.queryTimeoutMs;
          let rowCount: number | null = null;
          async function* bytes(): AsyncGenerator<Uint8Array> {
            const iterator = out[Symbol.asyncIterator]() as AsyncIterator<Uint8Array>;
            try {
              for (;;) {
                const next = await within(iterator.next(), stallMs, () => session.discard());
                if (next.done) break;
                yield next.value;
              }
              // Answered after the COPY's own reply (`COPY n`): the count is the server's.
              await client.query(`SET LOCAL statement_timeout = ${Math.trunc(stallMs)}`);
              rowCount = out.rowCount;
              state = 'done';
            } catch (error) {
              session.discard();
              throw readFailure(identity, error);
            } finally {
              settle();
            }
          }
          const copy = bytes();
          return Object.defineProperty(copy, 'rowCount', { get: () => rowCount }) as typeof copy & {
            readonly rowCount: number | null;
          };
        }),
    };
    return {
      rows,
      abandoned: () => {
        settle();
        return state === 'copying';
      },
    };
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
