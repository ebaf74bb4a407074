import { realpathSync } from 'node:fs';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import type { RowOrigin, RowStream } from '../../src/ports/connector.ts';
import { rowidName } from './sqlite-chunks.ts';
import type { SqliteDatabase } from './sqlite-connection.ts';
import { quoteIdentifier } from './sqlite-connection.ts';

/**
 * The engine copy (issue 37, item 2): when a SQLite target is handed the rows of a SQLite source
 * file (RowStream.origin), it ATTACHes that file read-only and copies the partition with
 * `INSERT … SELECT` inside the mutation's own transaction (after the guard, before the fence's row
 * count and COMMIT), so the rows never cross into JS and the copy commits or rolls back with the
 * fence exactly as the streamed rows did. The values are the ones the stream would have carried:
 * SQLite hands each stored value to the INSERT as it is (an INTEGER stays INTEGER, a REAL 20.0 stays
 * REAL, text and blobs byte for byte), and the target column's affinity applies the same way to a
 * selected value as to a bound one. The source is read as of the mutation's transaction.
 */

/** The schema name the source file is attached under, for the mutation's transaction only. */
export const SOURCE_SCHEMA = 'dpone_source';

/**
 * Table rows (not partition rows) one `INSERT … SELECT` covers: between two, a turn of the event
 * loop, as between the chunks of a stream (rowStream), so timers and signal handlers of a long load
 * still run. Large enough that the per-statement cost vanishes.
 */
export const COPY_CHUNK_ROWS = 50_000;

const MIN_ROWID = -(2n ** 63n);
const MAX_ROWID = 2n ** 63n - 1n;

function realpath(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

/** The file a schema of this connection is, or null when the schema is not there (or in memory). */
function schemaFile(db: SqliteDatabase, schema: string): string | null {
  const row = db.prepare('SELECT file FROM pragma_database_list WHERE name = ?').get(schema);
  const file = row === undefined ? '' : String(row.file);
  return file === '' ? null : realpath(file);
}

/**
 * The origin this target can copy from itself: a SQLite file that exists and is not the target's
 * own file, and a plain table name. Anything else (another engine, no origin, a stream whose values
 * are changed on the way, which carries none) is streamed.
 */
export function copyableOrigin(db: SqliteDatabase, rows: RowStream): RowOrigin | null {
  const origin = rows.origin;
  if (origin?.engine !== 'sqlite' || origin.table.includes('.')) return null;
  const source = realpath(origin.location);
  if (source === null || source === schemaFile(db, 'main')) return null;
  return origin;
}

/**
 * Attaches the source file read-only (`mode=ro`: this connection cannot write a byte of it) unless
 * it is attached already; `sqliteDialect` detaches it once the transaction has ended (SQLite
 * refuses DETACH inside one). Checks the attached schema is that file: a SQLite built without URI
 * support would attach a new, empty file of that odd name instead.
 */
function attachSource(db: SqliteDatabase, origin: RowOrigin): void {
  const source = realpath(origin.location);
  if (schemaFile(db, SOURCE_SCHEMA) === null) {
    db.prepare(`ATTACH DATABASE ? AS ${SOURCE_SCHEMA}`).run(`${pathToFileURL(origin.location).href}?mode=ro`);
  }
  if (schemaFile(db, SOURCE_SCHEMA) !== source)
    throw new Error('the attached SQLite source is not the source file');
}

/** Detaches the source if it is attached; outside a transaction only. Never throws. */
export function detachSource(db: SqliteDatabase): void {
  try {
    if (schemaFile(db, SOURCE_SCHEMA) !== null) db.exec(`DETACH DATABASE ${SOURCE_SCHEMA}`);
  } catch {
    // Left attached: the next copy finds it (same file) or refuses it (another file).
  }
}

/**
 * Copies the origin's partition into `table` in the caller's open transaction, by ranges of
 * `chunkRows` table rows in rowid order (one statement for a table without a rowid); returns
 * the rows written, counted by SQLite.
 */
export async function copyRows(
  db: SqliteDatabase,
  table: string,
  columns: readonly string[],
  origin: RowOrigin,
  chunkRows: number = COPY_CHUNK_ROWS,
): Promise<number> {
  attachSource(db, origin);
  const source = `${SOURCE_SCHEMA}.${quoteIdentifier(origin.table)}`;
  const list = columns.map(quoteIdentifier).join(', ');
  const partition = `CAST(${quoteIdentifier(origin.partitionColumn)} AS TEXT) = @value`;
  const insert = (range: string) =>
    db.prepare(
      `INSERT INTO ${quoteIdentifier(table)} (${list}) SELECT ${list} FROM ${source} WHERE ${range}${partition}`,
    );
  const rowid = rowidName(db, `${SOURCE_SCHEMA}.${origin.table}`);
  if (rowid === null) return Number(insert('').run({ value: origin.partitionValue }).changes);
  // Ranges [from, upper] of rowids, inclusive: the first starts at the smallest 64-bit rowid, the
  // last ends at the largest, so one statement of each kind covers every chunk.
  const copy = insert(`${rowid} >= @from AND ${rowid} <= @upper AND `);
  const bound = db.prepare(
    `SELECT ${rowid} AS upper FROM ${source} WHERE ${rowid} >= @from ORDER BY ${rowid} LIMIT 1 OFFSET ${chunkRows - 1}`,
  );
  bound.setReadBigInts(true);
  let from = MIN_ROWID;
  let written = 0;
  for (;;) {
    // The chunk's last rowid: the chunkRows-th from `from` (none: the rest of the table).
    const upper = (bound.get({ from }) as { upper: bigint } | undefined)?.upper ?? MAX_ROWID;
    written += Number(copy.run({ value: origin.partitionValue, from, upper }).changes);
    if (upper === MAX_ROWID) return written;
    from = upper + 1n;
    await nextTurn();
  }
}
