import { DponeError, ERROR_CODES } from '../../../contracts/errors.ts';
import type { SourceBatch } from '../../../ports/connector.ts';
import { EPOCH_COLUMN, OP_COLUMN } from './clickhouse-config.ts';

/**
 * How a batch travels to ClickHouse: TabSeparated text, one line per row, in the order of an
 * explicit column list. Every value is text the server parses with the target column's own type
 * (Decimal, DateTime, Int64, UInt64, Date, String…), so big integers stay exact (a bigint or a
 * string, never a rounded JS number), and columns the batch does not carry get the table's DEFAULT
 * expressions (with a column list, 18.16 evaluates them; JSONEachRow without one does not).
 * BLOB values (Uint8Array) go as their raw bytes: a String or FixedString column holds them exactly.
 */
const TAB = 0x09;
const NEWLINE = 0x0a;
const BACKSLASH = 0x5c;
const NULL_TEXT = Buffer.from('\\N');

/** TabSeparated escaping: backslash, tab, newline, carriage return and NUL are written as escapes. */
function escapeText(text: string): Buffer {
  return Buffer.from(
    text.replace(/[\\\t\n\r\0]/g, (c) =>
      c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : c === '\r' ? '\\r' : '\\0',
    ),
    'utf8',
  );
}

function escapeBytes(bytes: Uint8Array): Buffer {
  const out: number[] = [];
  for (const byte of bytes) {
    if (byte === BACKSLASH) out.push(BACKSLASH, BACKSLASH);
    else if (byte === TAB) out.push(BACKSLASH, 0x74);
    else if (byte === NEWLINE) out.push(BACKSLASH, 0x6e);
    else out.push(byte);
  }
  return Buffer.from(out);
}

function refused(column: string, why: string): DponeError {
  return new DponeError(ERROR_CODES.DATA_REJECTED, `column ${column} ${why}`, {
    field: 'data.columns',
    hint: 'dpone carries text, numbers (bigint too), BLOBs and NULL',
  });
}

/** One value as TabSeparated bytes; `column` only names it in an error (never the value). */
export function encodeValue(value: unknown, column: string): Buffer {
  if (value === null || value === undefined) return NULL_TEXT;
  if (typeof value === 'string') return escapeText(value);
  if (typeof value === 'bigint') return Buffer.from(value.toString());
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return Buffer.from(Number.isNaN(value) ? 'nan' : value > 0 ? 'inf' : '-inf');
    return Buffer.from(String(value));
  }
  if (value instanceof Uint8Array) return escapeBytes(value);
  throw refused(column, `holds a ${typeof value === 'object' ? 'structured' : typeof value} value`);
}

export interface EncodedBatch {
  /** The quoted-free column names, in order: the batch's columns, then the generation columns. */
  readonly columns: readonly string[];
  readonly body: Buffer;
}

/**
 * The batch as TabSeparated lines tagged with the generation (`_dpone_op`, `_dpone_epoch`).
 * `notNull` columns (the sort and partition keys) refuse NULL before anything is sent.
 */
export function encodeBatch(
  batch: SourceBatch,
  operationId: string,
  epoch: number,
  notNull: ReadonlySet<string>,
): EncodedBatch {
  const parts: Buffer[] = [];
  const tags = [escapeText(operationId), Buffer.from(String(epoch))];
  const tab = Buffer.from([TAB]);
  const newline = Buffer.from([NEWLINE]);
  for (const row of batch.rows) {
    batch.columns.forEach((column, i) => {
      const value = (row as Readonly<Record<string, unknown>>)[column];
      if ((value === null || value === undefined) && notNull.has(column)) {
        throw refused(column, 'holds NULL, and it is part of the sort or partition key');
      }
      if (i > 0) parts.push(tab);
      parts.push(encodeValue(value, column));
    });
    for (const tag of tags) parts.push(tab, tag);
    parts.push(newline);
  }
  return { columns: [...batch.columns, OP_COLUMN, EPOCH_COLUMN], body: Buffer.concat(parts) };
}
