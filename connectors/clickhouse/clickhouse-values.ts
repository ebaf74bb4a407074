import { createHash } from 'node:crypto';
import { DponeError, ERROR_CODES } from '../../src/contracts/errors.ts';
import type { RowChunk } from '../../src/ports/connector.ts';
import { EPOCH_COLUMN, OP_COLUMN } from './clickhouse-config.ts';
import type { ValueRule } from './clickhouse-value-rules.ts';

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

/** What the target's column types allow (clickhouse-value-rules.ts), and how to name a refused row. */
export interface ValueChecks {
  /** One rule per column of the chunk (null: left to the server). */
  readonly rules: readonly (ValueRule | null)[];
  readonly naturalKey: readonly string[];
  /** Rows encoded before this chunk (the refused row's position in the partition). */
  readonly rowsBefore: number;
}

/**
 * A row's natural key as a fingerprint (the first 12 hex digits of sha256 over the key values'
 * JSON): it finds the row again without putting a row value into an error or a log.
 */
export function keyFingerprint(values: readonly unknown[]): string {
  const text = JSON.stringify(
    values.map((v) => (typeof v === 'bigint' ? v.toString() : v instanceof Uint8Array ? [...v] : v)),
  );
  return `sha256:${createHash('sha256').update(text).digest('hex').slice(0, 12)}`;
}

function ruleBroken(
  column: string,
  rule: string,
  row: number,
  key: readonly string[],
  fingerprint: string,
): DponeError {
  return new DponeError(
    ERROR_CODES.DATA_REJECTED,
    `column ${column}, row ${row} of the partition (natural key ${key.join(', ')} = ${fingerprint}): ${rule}; nothing was attached`,
    {
      field: `data.columns.${column}`,
      hint: 'fix the source value or the column type; the key fingerprint is sha256 over the JSON array of the key values (first 12 hex digits)',
    },
  );
}

/**
 * One chunk of rows as TabSeparated lines tagged with the generation (`_dpone_op`,
 * `_dpone_epoch`), in the order `encodedColumns(columns)` names. `notNull` columns (the sort and
 * partition keys) refuse NULL before the chunk is sent; `checks` refuse every value the target
 * column would store changed (DATA_REJECTED naming the column, the row and the rule).
 */
export function encodeChunk(
  columns: readonly string[],
  chunk: RowChunk,
  operationId: string,
  epoch: number,
  notNull: ReadonlySet<string>,
  checks?: ValueChecks,
): Buffer {
  if (checks) checkChunk(columns, chunk, checks);
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

function checkChunk(columns: readonly string[], chunk: RowChunk, checks: ValueChecks): void {
  const keyAt = checks.naturalKey.map((k) => columns.indexOf(k));
  chunk.forEach((row, r) => {
    checks.rules.forEach((rule, i) => {
      const broken = rule?.(row[i]);
      if (broken)
        throw ruleBroken(
          columns[i]!,
          broken,
          checks.rowsBefore + r + 1,
          checks.naturalKey,
          keyFingerprint(keyAt.map((k) => (k < 0 ? null : row[k]))),
        );
    });
  });
}
