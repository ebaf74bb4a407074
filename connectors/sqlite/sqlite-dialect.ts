import type { DponeError } from '../../src/contracts/errors.ts';
import type {
  FenceParams,
  MarkerDialect,
  SqlResult,
} from '../../src/adapters/connectors/marker-fence/marker-dialect.ts';
import {
  fenceSql,
  onConflictStyle,
  usedParameters,
} from '../../src/adapters/connectors/marker-fence/marker-sql.ts';
import type { SqliteDatabase } from './sqlite-connection.ts';
import { rollbackQuietly } from './sqlite-connection.ts';
import { copyRows, copyableOrigin, detachSource } from './sqlite-copy.ts';
import { SQLITE_FENCE_TABLE } from './sqlite-fence.ts';
import { deletePartition, insertRows } from './sqlite-rows.ts';
import { targetStorageError } from './sqlite-storage.ts';

/** The SQLite dialect of the transactional-marker kernel (../marker-fence holds the protocol). */
const SQL = fenceSql(onConflictStyle(SQLITE_FENCE_TABLE));

function run(db: SqliteDatabase, sql: string, params: FenceParams): SqlResult {
  const statement = db.prepare(sql);
  const bound = usedParameters(sql, params);
  if (statement.columns().length > 0) return { rows: statement.all(bound), affected: 0 };
  return { rows: [], affected: Number(statement.run(bound).changes) };
}

/**
 * The fence and mutation on one SQLite connection. Writes take the database's write lock at BEGIN
 * (IMMEDIATE), so two workers on one target queue on the busy timeout instead of deadlocking.
 * `table` is the target table the mutation writes; `path`, the target file, lets a full or read-only
 * disk be told as such (sqlite-storage.ts) when the fence is prepared or the rows written.
 */
export function sqliteDialect(db: SqliteDatabase, table: string, path?: string): MarkerDialect {
  return {
    label: 'SQLite',
    ...(path === undefined
      ? {}
      : {
          refineError: (step: 'prepare' | 'mutate' | 'query', error: unknown, fallback: DponeError) =>
            (step === 'query' ? null : targetStorageError(error, path, fallback.fields)) ?? fallback,
        }),
    sql: SQL,
    async batch(statements, params) {
      db.exec('BEGIN IMMEDIATE');
      try {
        let last: SqlResult = { rows: [], affected: 0 };
        for (const statement of statements) last = run(db, statement, params);
        db.exec('COMMIT');
        return last;
      } catch (error) {
        rollbackQuietly(db);
        throw error;
      }
    },
    read: async (statement, params) => {
      try {
        return run(db, statement, params);
      } catch (error) {
        // No fence table in the file: there is no fence here.
        if (/no such table/i.test((error as Error).message)) return { rows: [], affected: 0 };
        throw error;
      }
    },
    async mutation(body) {
      db.exec('BEGIN IMMEDIATE');
      try {
        return await body({
          run: async (sql, params) => run(db, sql, params),
          deletePartition: async (column, value) => deletePartition(db, table, column, value),
          // Rows of a SQLite source file: the engine copies them (sqlite-copy.ts); else streamed.
          insertRows: async (batch) => {
            const origin = copyableOrigin(db, batch);
            return origin === null
              ? insertRows(db, table, batch)
              : copyRows(db, table, batch.columns, origin);
          },
          commit: async () => db.exec('COMMIT'),
          rollback: async () => rollbackQuietly(db),
        });
      } catch (error) {
        rollbackQuietly(db);
        throw error;
      } finally {
        // The transaction has ended (committed or rolled back): an engine copy's source goes.
        detachSource(db);
      }
    },
    async close() {
      if (db.isOpen) db.close();
    },
  };
}
