import { DponeError, ERROR_CODES } from '../../../contracts/errors.ts';
import type { RowChunk } from '../../../ports/connector.ts';
import { EPOCH_COLUMN, OP_COLUMN } from './clickhouse-config.ts';

/**
 * How rows travel to ClickHouse: TabSeparated text, one line per row, in the order of an
 * explicit column list. Every value is text the server parses with the target column's own type
 * (Decimal, DateTime, Int64, UInt64, Date, String…), so big integers stay exact (a bigint or a
 * string, never a rounded JS number), and columns the rows do not carry get the table's DEFAULT
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

/** The generation columns every encoded line ends with, after the workload's columns. */
export function encodedColumns(columns: readonly string[]): string[] {
  return [...columns, OP_COLUMN, EPOCH_COLUMN];
}

/**
 * One chunk of rows as TabSeparated lines tagged with the generation (`_dpone_op`,
 * `_dpone_epoch`), in the order `encodedColumns(columns)` names. `notNull` columns (the sort and
 * partition keys) refuse NULL before the chunk is sent.
 */
export function encodeChunk(
  columns: readonly string[],
  chunk: RowChunk,
  operationId: string,
  epoch: number,
  notNull: ReadonlySet<string>,
): Buffer {
  const parts: Buffer[] = [];
  const tags = [escapeText(operationId), Buffer.from(String(epoch))];
  const tab = Buffer.from([TAB]);
  const newline = Buffer.from([NEWLINE]);
  const keyed = columns.map((column) => notNull.has(column));
  for (const row of chunk) {
    columns.forEach((column, i) => {
      const value = row[i];
      if ((value === null || value === undefined) && keyed[i]) {
        throw refused(column, 'holds NULL, and it is part of the sort or partition key');
      }
      if (i > 0) parts.push(tab);
      parts.push(encodeValue(value, column));
    });
    for (const tag of tags) parts.push(tab, tag);
    parts.push(newline);
  }
  return Buffer.concat(parts);
}
