import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { NativeCopy, RowChunk, RowStream } from '../../src/ports/connector.ts';
import { quoteIdentifier, quoteTable } from './postgres-config.ts';

/**
 * COPY … FROM STDIN, text format: the server's own bulk path, one statement however many rows.
 * Every value travels as text the column's type parses (as a bound parameter did before), NULL
 * as `\N`; backslash, tab, newline and carriage return are escaped, bytes go as bytea hex.
 */
const NEEDS_ESCAPE = /[\\\t\n\r]/;
const ESCAPED = /[\\\t\n\r]/g;
const ESCAPES: Readonly<Record<string, string>> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

function copyText(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  if (typeof value === 'string')
    return NEEDS_ESCAPE.test(value) ? value.replace(ESCAPED, (c) => ESCAPES[c]!) : value;
  // A BLOB arrives as bytes (an embedded source's): bytea's hex input, its backslash escaped for COPY.
  if (value instanceof Uint8Array) return `\\\\x${Buffer.from(value).toString('hex')}`;
  return String(value);
}

/** One chunk as COPY text lines. */
export function encodeCopyChunk(chunk: RowChunk): string {
  let text = '';
  for (const row of chunk) {
    for (let i = 0; i < row.length; i++) text += (i === 0 ? '' : '\t') + copyText(row[i]);
    text += '\n';
  }
  return text;
}

/** Raised into the COPY when the source stops: the server aborts the COPY (CopyFail), nothing lands. */
const SOURCE_STOPPED = 'dpone: the source rows stopped before the end';

/** What bounds a COPY instead of the per-statement timeout: how long one step may stall. */
export interface CopyBounds {
  /**
   * Each chunk must be taken by the socket, and the server must answer the end (or the abort),
   * within this. `null` only for the unsafe variant `copy-never-gives-up`.
   */
  readonly stallMs: number | null;
  /**
   * Gives up on the connection (destroys its socket): after a stall the driver would wait for the
   * server's answer to the abort (CopyFail) without bound, so the connection goes, the server
   * rolls back when it next reads, and the fence decides.
   */
  readonly abandon: () => void;
}

/** The longest timer Node takes: the client's per-query timeout, in effect lifted for the COPY. */
export const NO_QUERY_TIMEOUT = 2 ** 31 - 1;

/** A COPY step that made no progress within its bound; the connection was abandoned. */
export class CopyStalled extends Error {
  constructor(ms: number) {
    super(`dpone: the COPY made no progress for ${ms} ms; the connection was abandoned`);
    this.name = 'CopyStalled';
  }
}

/** Waits for `step`; past `ms`, `onStall` gives up on what it waits on and the wait rejects. */
export async function within<T>(step: Promise<T>, ms: number | null, onStall: () => void): Promise<T> {
  if (ms === null) return step;
  let timer: NodeJS.Timeout | undefined;
  const stalled = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onStall();
      reject(new CopyStalled(ms));
    }, ms);
  });
  try {
    return await Promise.race([step, stalled]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Streams the rows into `table` with one COPY in the caller's open transaction, chunk by chunk
 * with the socket's backpressure (memory bounded by a chunk). Returns the rows the server
 * counted. A failure of the source or of the server rejects; the transaction is then aborted.
 *
 * A COPY lasts as long as the partition is large, so a per-statement bound (the server's
 * statement_timeout, the client's query_timeout) would cap the partition size: this transaction
 * lifts both for the COPY only and bounds every step's stall instead (`bounds.stallMs`): a chunk
 * the socket does not take, the server's answer to the end, and the server's answer to an abort
 * each end within it, else the connection is abandoned. So a stalled COPY ends within stallMs
 * (plus the time the source takes to hand over one chunk).
 */
export async function copyRows(
  client: pg.Client,
  table: string,
  rows: RowStream,
  bounds: CopyBounds,
): Promise<number> {
  const columns = rows.columns.map(quoteIdentifier).join(', ');
  return copyIn(client, `COPY ${quoteTable(table)} (${columns}) FROM STDIN`, encoded(rows), bounds);
}

async function* encoded(rows: RowStream): AsyncGenerator<string> {
  for await (const chunk of rows) yield encodeCopyChunk(chunk);
}

/** RowStream.native's format for PostgreSQL: `COPY … TO STDOUT (FORMAT binary)`'s bytes. */
export const BINARY_COPY = 'postgresql-binary-copy/1';

/**
 * FirstNormalObjectId: a type below it is the server's own (the same OID, name and binary form in
 * every database); a type above it (a domain, an enum, a composite) differs per database, and its
 * binary form may carry its OID (an array's element type), so it never takes the binary path.
 */
const FIRST_USER_OID = 16384;

/**
 * The columns' types from the catalog, in `columns` order, as `format_type` spells them with the
 * modifier (`numeric(12,2)`, `character varying(40)`); a type of the database's own is marked
 * `user-defined`, a column the table lacks `missing`. Names and types only, no row values.
 */
export async function columnTypes(
  client: Pick<pg.Client, 'query'>,
  table: string,
  columns: readonly string[],
): Promise<string[]> {
  const { rows } = await client.query<{ name: string; type: string; oid: string }>(
    'SELECT attname AS name, format_type(atttypid, atttypmod) AS type, atttypid::int8::text AS oid ' +
      'FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped',
    [quoteTable(table)],
  );
  const types = new Map(
    rows.map((r) => [r.name, Number(r.oid) < FIRST_USER_OID ? r.type : `user-defined ${r.type}`]),
  );
  return columns.map((column) => types.get(column) ?? 'missing');
}

/**
 * Why the binary path cannot take these columns (their types differ, or one is not the server's
 * own), or null when it can: the same built-in type with the same modifier on both sides means
 * the target's binary input reads exactly the value the source's binary output wrote.
 */
export function binaryCopyRefusal(
  columns: readonly string[],
  source: readonly string[],
  target: readonly string[],
): string | null {
  for (let i = 0; i < columns.length; i++) {
    const [from, to] = [source[i] ?? 'missing', target[i] ?? 'missing'];
    if (from !== to) return `column ${columns[i]} is ${from} in the source, ${to} in the target`;
    if (from.startsWith('user-defined') || from === 'missing')
      return `column ${columns[i]} has a type that is not PostgreSQL's own (${from})`;
  }
  return null;
}

/** The target's COPY answered another row count than the source's: aborted, nothing lands. */
export class CopyCountMismatch extends Error {
  constructor(source: number | null, target: number) {
    super(
      `dpone: the source's COPY sent ${source ?? 'an unknown number of'} rows, the target's took ${target}`,
    );
    this.name = 'CopyCountMismatch';
  }
}

/**
 * The source's binary COPY bytes straight into `COPY … FROM STDIN (FORMAT binary)` in the
 * caller's open transaction: no row is decoded in Node. The same bounds as copyRows; the count is
 * the servers' own (`COPY n` on both sides) and must agree, else this rejects before COMMIT and
 * the transaction rolls back: nothing lands.
 */
export async function copyBinary(
  client: pg.Client,
  table: string,
  columns: readonly string[],
  bytes: NativeCopy,
  bounds: CopyBounds,
): Promise<number> {
  const list = columns.map(quoteIdentifier).join(', ');
  const written = await copyIn(
    client,
    `COPY ${quoteTable(table)} (${list}) FROM STDIN (FORMAT binary)`,
    bytes,
    bounds,
  );
  if (bytes.rowCount !== written) throw new CopyCountMismatch(bytes.rowCount, written);
  return written;
}

/**
 * One COPY … FROM STDIN of `chunks` in the caller's open transaction, bounded as copyRows says;
 * returns the server's count.
 */
async function copyIn(
  client: pg.Client,
  statement: string,
  chunks: AsyncIterable<string | Uint8Array>,
  bounds: CopyBounds,
): Promise<number> {
  await client.query('SET LOCAL statement_timeout = 0');
  const copy = client.query(Object.assign(copyFrom(statement), { query_timeout: NO_QUERY_TIMEOUT }));
  const done = finished(copy);
  // The server may refuse the rows mid-stream (a check, a missing partition, row-level security):
  // the stream then has no connection to write to, and its error is the cause to report.
  let refused: unknown = undefined;
  let aborted = false;
  done.catch((error: unknown) => {
    // The server's answer to our own abort is not a refusal: the cause is what made us abort.
    if (!aborted) refused ??= error;
  });
  const { stallMs, abandon } = bounds;
  try {
    for await (const chunk of chunks) {
      if (refused !== undefined || copy.destroyed) throw refused ?? new Error(SOURCE_STOPPED);
      if (!copy.write(chunk)) await within(Promise.race([once(copy, 'drain'), done]), stallMs, abandon);
    }
  } catch (error) {
    // The abort (CopyFail) is answered by the server; a stalled one never answers: bounded too.
    aborted = refused === undefined;
    copy.destroy(new Error(SOURCE_STOPPED));
    if (!(error instanceof CopyStalled))
      await within(
        done.catch(() => undefined),
        stallMs,
        abandon,
      ).catch(() => undefined);
    throw refused ?? error;
  }
  copy.end();
  await within(done, stallMs, abandon);
  // Back to the transaction's pinned bound for the rest of it (the fence's row count, COMMIT).
  if (stallMs !== null) await client.query(`SET LOCAL statement_timeout = ${Math.trunc(stallMs)}`);
  return copy.rowCount;
}
