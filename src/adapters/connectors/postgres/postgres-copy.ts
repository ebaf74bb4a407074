import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { RowChunk, RowStream } from '../../../ports/connector.ts';
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
  // A SQLite BLOB arrives as bytes: bytea's hex input, its backslash escaped for COPY.
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

/**
 * Streams the rows into `table` with one COPY in the caller's open transaction, chunk by chunk
 * with the socket's backpressure (memory bounded by a chunk). Returns the rows the server
 * counted. A failure of the source or of the server rejects; the transaction is then aborted.
 */
export async function copyRows(client: pg.Client, table: string, rows: RowStream): Promise<number> {
  const columns = rows.columns.map(quoteIdentifier).join(', ');
  const copy = client.query(copyFrom(`COPY ${quoteTable(table)} (${columns}) FROM STDIN`));
  const done = finished(copy);
  done.catch(() => undefined);
  try {
    for await (const chunk of rows) {
      if (!copy.write(encodeCopyChunk(chunk))) await Promise.race([once(copy, 'drain'), done]);
    }
  } catch (error) {
    copy.destroy(new Error(SOURCE_STOPPED));
    await done.catch(() => undefined);
    throw error;
  }
  copy.end();
  await done;
  return copy.rowCount;
}
