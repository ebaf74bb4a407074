import { FENCE_TABLE } from '../marker-fence/marker-fence.ts';
import type { FenceSql } from '../marker-fence/marker-sql.ts';
import { fenceSql } from '../marker-fence/marker-sql.ts';

/**
 * The fence table of an MSSQL target and its statements in T-SQL (the protocol is in
 * ../marker-fence; the dialect in mssql-dialect.ts). The guard UPDATE is the mutation's first
 * statement and holds the row's exclusive lock until COMMIT or ROLLBACK.
 */
export { FENCE_TABLE };

export const FENCE_TABLE_DDL =
  `IF OBJECT_ID(N'${FENCE_TABLE}', N'U') IS NULL CREATE TABLE ${FENCE_TABLE} (` +
  'operation_id NVARCHAR(80) NOT NULL PRIMARY KEY, epoch BIGINT NOT NULL, status NVARCHAR(16) NOT NULL, ' +
  'committed_epoch BIGINT NULL, rows_written BIGINT NULL, updated_at_ms BIGINT NOT NULL)';

/**
 * - Insert-if-absent under UPDLOCK + HOLDLOCK (HOLDLOCK is SERIALIZABLE for this table: the key
 *   range stays locked, so of two concurrent installers one waits for the other).
 * - Reads take READCOMMITTEDLOCK: even where the database reads row versions
 *   (READ_COMMITTED_SNAPSHOT, the Azure SQL default), the fence read waits for an in-flight guard's
 *   COMMIT or ROLLBACK instead of answering from the version before it.
 * - The guard's count comes from @@ROWCOUNT, which holds even under SET NOCOUNT ON.
 * Parameters are bound, never inlined.
 */
export const FENCE_SQL: FenceSql = fenceSql({
  table: FENCE_TABLE,
  literal: (text) => `N'${text}'`,
  guardHint: ' WITH (ROWLOCK, UPDLOCK)',
  readHint: ' WITH (READCOMMITTEDLOCK)',
  insertIfAbsent: (columns, values) =>
    `INSERT INTO ${FENCE_TABLE} (${columns.join(', ')}) SELECT ${values.join(', ')} WHERE NOT EXISTS ` +
    `(SELECT 1 FROM ${FENCE_TABLE} WITH (UPDLOCK, HOLDLOCK) WHERE operation_id = @operation_id);`,
  guardSuffix: ' SELECT @@ROWCOUNT AS affected;',
  end: ';',
});

/** Statements sent as one batch: each ends with `;`. */
export function batchSql(statements: readonly string[]): string {
  return statements.map((s) => (s.endsWith(';') ? s : `${s};`)).join(' ');
}

/** The one batch prepareFence sends; without raising it is the unsafe "ignore-epoch" install. */
export function installFenceSql(raiseEpoch: boolean): string {
  return batchSql([
    FENCE_SQL.insertIfAbsent,
    ...(raiseEpoch ? [FENCE_SQL.raiseEpoch] : []),
    FENCE_SQL.select,
  ]);
}
