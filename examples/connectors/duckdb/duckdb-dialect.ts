import type { FenceParams, MarkerDialect, MutationTx, RowStream, SqlResult } from 'dpone-cert';
import { FENCE_TABLE, fenceSql, onConflictStyle } from 'dpone-cert';
import type { DuckdbSession } from './duckdb-database.ts';
import { quote, withSession } from './duckdb-database.ts';

/** DuckDB spells the fence statements like PostgreSQL: `INSERT … ON CONFLICT DO NOTHING`. */
const SQL = fenceSql(onConflictStyle(FENCE_TABLE));

/** The fence table, created with the target (never a fence row: only prepareFence writes those). */
export const FENCE_DDL =
  `CREATE TABLE IF NOT EXISTS ${FENCE_TABLE} (operation_id VARCHAR PRIMARY KEY, epoch BIGINT NOT NULL, ` +
  'status VARCHAR NOT NULL, committed_epoch BIGINT, rows_written BIGINT, intent_digest VARCHAR, ' +
  'holder VARCHAR, updated_at_ms BIGINT NOT NULL)';

/** Rows per INSERT statement: well below DuckDB's parameter limits, large enough to be quick. */
const ROWS_PER_INSERT = 500;

export async function insertRows(session: DuckdbSession, table: string, rows: RowStream): Promise<number> {
  const columns = rows.columns.map(quote).join(', ');
  const placeholders = (count: number) =>
    Array.from(
      { length: count },
      (_, row) =>
        `(${rows.columns.map((_c, column) => `$${row * rows.columns.length + column + 1}`).join(', ')})`,
    ).join(', ');
  let written = 0;
  for await (const chunk of rows) {
    for (let start = 0; start < chunk.length; start += ROWS_PER_INSERT) {
      const slice = chunk.slice(start, start + ROWS_PER_INSERT);
      const sql = `INSERT INTO ${quote(table)} (${columns}) VALUES ${placeholders(slice.length)}`;
      written += await session.runValues(sql, slice.flat());
    }
  }
  return written;
}

/**
 * The mutation's transaction on `session`: `body` gets its statements, which all run on `session`
 * inside it; a failure before `commit` or `rollback` rolls it back.
 */
export async function inMutation<T>(
  session: DuckdbSession,
  table: string,
  body: (tx: MutationTx) => Promise<T>,
): Promise<T> {
  await session.run('BEGIN TRANSACTION');
  let open = true;
  const tx: MutationTx = {
    run: (sql: string, params: FenceParams) => session.run(sql, params),
    deletePartition: (column, value) =>
      session.runValues(`DELETE FROM ${quote(table)} WHERE CAST(${quote(column)} AS VARCHAR) = $1`, [value]),
    insertRows: (rows) => insertRows(session, table, rows),
    commit: async () => {
      open = false;
      await session.run('COMMIT');
    },
    rollback: async () => {
      open = false;
      await session.run('ROLLBACK');
    },
  };
  try {
    return await body(tx);
  } catch (error) {
    if (open) await session.run('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/**
 * The DuckDB dialect of the transactional-marker kernel that `dpone-cert` exports. Every call opens
 * the file, does its work in one transaction and closes it: DuckDB lets one process at a time hold
 * a database file, so a worker holds it only while it works (a paused worker holds it only inside
 * its own transaction, like SQLite's write lock).
 */
export function duckdbDialect(path: string, table: string, readOnly: boolean): MarkerDialect {
  return {
    label: 'DuckDB',
    sql: SQL,
    batch: (statements, params) =>
      withSession(path, false, async (session) => {
        await session.run('BEGIN TRANSACTION');
        try {
          let last: SqlResult = { rows: [], affected: 0 };
          for (const statement of statements) last = await session.run(statement, params);
          await session.run('COMMIT');
          return last;
        } catch (error) {
          await session.run('ROLLBACK').catch(() => undefined);
          throw error;
        }
      }),
    read: (statement, params) =>
      withSession(path, readOnly, async (session) => {
        try {
          return await session.run(statement, params);
        } catch (error) {
          // No fence table in the file: there is no fence here.
          if (/Table with name \S+ does not exist/i.test(String((error as Error).message)))
            return { rows: [], affected: 0 };
          throw error;
        }
      }),
    mutation: (body) => withSession(path, false, (session) => inMutation(session, table, body)),
    close: async () => undefined,
  };
}
