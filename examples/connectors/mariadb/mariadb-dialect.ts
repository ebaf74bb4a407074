import type { FenceParams, FenceSqlStyle, MarkerDialect, MutationTx, RowStream, SqlResult } from 'dpone-cert';
import { FENCE_TABLE, fenceSql, onConflictStyle } from 'dpone-cert';
import type { MariadbAddress, MariadbSession } from './mariadb-database.ts';
import { quote, withSession } from './mariadb-database.ts';

/**
 * The kernel's plain style (onConflictStyle), except that MariaDB spells insert-if-absent as
 * `INSERT … ON DUPLICATE KEY UPDATE` with a no-op assignment (never `INSERT IGNORE`, which also
 * turns a truncated or rejected value into a warning).
 */
export function mariadbStyle(table: string): FenceSqlStyle {
  return {
    ...onConflictStyle(table),
    insertIfAbsent: (columns, values) =>
      `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${values.join(', ')}) ` +
      'ON DUPLICATE KEY UPDATE operation_id = operation_id',
  };
}

const SQL = fenceSql(mariadbStyle(quote(FENCE_TABLE)));

/**
 * Byte-exact text everywhere: `utf8mb4_nopad_bin` compares bytes and keeps trailing spaces apart
 * (the `_bin` collations are PAD SPACE: 'a' = 'a ' there), and utf8mb4 holds emoji.
 */
export const TABLE_OPTIONS = 'ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_nopad_bin';

/** The fence table, created with the target (never a fence row: only prepareFence writes those). */
export const FENCE_DDL =
  `CREATE TABLE IF NOT EXISTS ${quote(FENCE_TABLE)} (operation_id VARCHAR(255) NOT NULL PRIMARY KEY, ` +
  'epoch BIGINT NOT NULL, status VARCHAR(32) NOT NULL, committed_epoch BIGINT NULL, rows_written BIGINT NULL, ' +
  `intent_digest VARCHAR(255) NULL, holder VARCHAR(255) NULL, updated_at_ms BIGINT NOT NULL) ${TABLE_OPTIONS}`;

/** ER_NO_SUCH_TABLE: no fence table where the fence must live, so no fence. */
const NO_SUCH_TABLE = 1146;

/** Rows per INSERT statement: well below max_allowed_packet with 4 KiB labels. */
const ROWS_PER_INSERT = 200;

export async function insertRows(session: MariadbSession, table: string, rows: RowStream): Promise<number> {
  const columns = rows.columns.map(quote).join(', ');
  const tuple = `(${rows.columns.map(() => '?').join(', ')})`;
  let written = 0;
  for await (const chunk of rows) {
    for (let start = 0; start < chunk.length; start += ROWS_PER_INSERT) {
      const slice = chunk.slice(start, start + ROWS_PER_INSERT);
      const sql = `INSERT INTO ${quote(table)} (${columns}) VALUES ${slice.map(() => tuple).join(', ')}`;
      written += (await session.runValues(sql, slice.flat())).affected;
    }
  }
  return written;
}

/** Runs `body` between START TRANSACTION and COMMIT; any failure before COMMIT rolls back. */
async function inTransaction(session: MariadbSession, body: () => Promise<SqlResult>): Promise<SqlResult> {
  await session.runValues('START TRANSACTION');
  try {
    const result = await body();
    await session.runValues('COMMIT');
    return result;
  } catch (error) {
    await session.runValues('ROLLBACK').catch(() => session.destroy());
    throw error;
  }
}

/**
 * The mutation's transaction on `session`: `body` gets its statements, which all run on `session`
 * inside it; a failure before `commit` or `rollback` rolls it back.
 */
export async function inMutation<T>(
  session: MariadbSession,
  table: string,
  body: (tx: MutationTx) => Promise<T>,
): Promise<T> {
  await session.runValues('START TRANSACTION');
  let open = true;
  const tx: MutationTx = {
    run: (sql: string, params: FenceParams) => session.run(sql, params),
    deletePartition: async (column, value) =>
      (
        await session.runValues(`DELETE FROM ${quote(table)} WHERE CAST(${quote(column)} AS CHAR) = ?`, [
          value,
        ])
      ).affected,
    insertRows: (rows) => insertRows(session, table, rows),
    commit: async () => {
      open = false;
      await session.runValues('COMMIT');
    },
    rollback: async () => {
      open = false;
      await session.runValues('ROLLBACK');
    },
  };
  try {
    return await body(tx);
  } catch (error) {
    // Dropping the connection rolls the transaction back too, should ROLLBACK itself fail.
    if (open) await session.runValues('ROLLBACK').catch(() => session.destroy());
    throw error;
  }
}

/**
 * The MariaDB dialect of the transactional-marker kernel. Every call opens a connection, does its
 * work (one InnoDB transaction for a batch and for the mutation) and closes it: the fence row is
 * written in the data's transaction on the data's connection, never on another one.
 */
export function mariadbDialect(address: MariadbAddress, table: string, readOnly: boolean): MarkerDialect {
  return {
    label: 'MariaDB',
    sql: SQL,
    batch: (statements, params) =>
      withSession(address, (session) =>
        inTransaction(session, async () => {
          let last: SqlResult = { rows: [], affected: 0 };
          for (const statement of statements) last = await session.run(statement, params);
          return last;
        }),
      ),
    read: (statement, params) =>
      withSession(address, async (session) => {
        try {
          // A locking read waits (up to innodb_lock_wait_timeout) for a transaction still holding
          // the fence row, such as a COMMIT in flight: its answer is then final, never "not
          // committed" for a commit still landing. A read-only open (recovery inspect) only reads.
          if (readOnly) return await session.run(statement, params);
          return await inTransaction(session, () => session.run(`${statement} LOCK IN SHARE MODE`, params));
        } catch (error) {
          if ((error as { errno?: unknown }).errno === NO_SUCH_TABLE) return { rows: [], affected: 0 };
          throw error;
        }
      }),
    mutation: (body) => withSession(address, (session) => inMutation(session, table, body)),
    close: async () => undefined,
  };
}
