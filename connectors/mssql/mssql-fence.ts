import { invalidInput } from '../../src/contracts/errors.ts';
import { FENCE_TABLE } from '../../src/adapters/connectors/marker-fence/marker-fence.ts';
import type { FenceSql } from '../../src/adapters/connectors/marker-fence/marker-sql.ts';
import { ADDED_FENCE_COLUMNS, fenceSql } from '../../src/adapters/connectors/marker-fence/marker-sql.ts';
import { quoteIdentifier } from './mssql-connector-config.ts';

/**
 * Where an MSSQL target's fence lives and its statements in T-SQL (the protocol is in
 * ../marker-fence; the dialect in mssql-dialect.ts). The table is always schema-qualified:
 * `target.fence_schema`, default `dbo`; system schemas are refused.
 * - Insert-if-absent under UPDLOCK + HOLDLOCK (HOLDLOCK is SERIALIZABLE for this table: the key
 *   range stays locked, so of two concurrent installers one waits for the other).
 * - Reads take READCOMMITTEDLOCK: even where the database reads row versions
 *   (READ_COMMITTED_SNAPSHOT, the Azure SQL default), the fence read waits for an in-flight guard's
 *   COMMIT or ROLLBACK instead of answering from the version before it.
 * - The guard UPDATE holds the row's exclusive lock until COMMIT or ROLLBACK; its count comes from
 *   @@ROWCOUNT, which holds even under SET NOCOUNT ON.
 * Parameters are bound, never inlined.
 */
export interface MssqlFence {
  readonly schema: string;
  /** The quoted, qualified table name the SQL uses. */
  readonly table: string;
  /** Safe identity recorded in the journal, e.g. `mssql:dbo._dpone_fence`. */
  readonly location: string;
  readonly sql: FenceSql;
  /** Creates the table when missing, then adds the columns an older table lacks. */
  readonly ddl: readonly string[];
}

const SCHEMA = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const SYSTEM_SCHEMAS = new Set(['sys', 'information_schema', 'guest']);

export function mssqlFence(fenceSchema: string | undefined): MssqlFence {
  const schema = fenceSchema ?? 'dbo';
  const field = 'target.fence_schema';
  if (!SCHEMA.test(schema))
    throw invalidInput(`${field} names a bad fence schema (letters, digits, _)`, { field });
  if (SYSTEM_SCHEMAS.has(schema.toLowerCase())) {
    throw invalidInput(`${field} puts the fence in the system schema ${schema}; name an ordinary schema`, {
      field,
    });
  }
  const table = `${quoteIdentifier(schema)}.${quoteIdentifier(FENCE_TABLE)}`;
  const name = `N'${schema}.${FENCE_TABLE}'`;
  return {
    schema,
    table,
    location: `mssql:${schema}.${FENCE_TABLE}`,
    sql: fenceSql({
      table,
      literal: (text) => `N'${text}'`,
      guardHint: ' WITH (ROWLOCK, UPDLOCK)',
      readHint: ' WITH (READCOMMITTEDLOCK)',
      insertIfAbsent: (columns, values) =>
        `INSERT INTO ${table} (${columns.join(', ')}) SELECT ${values.join(', ')} WHERE NOT EXISTS ` +
        `(SELECT 1 FROM ${table} WITH (UPDLOCK, HOLDLOCK) WHERE operation_id = @operation_id);`,
      guardSuffix: ' SELECT @@ROWCOUNT AS affected;',
      end: ';',
    }),
    ddl: [
      `IF OBJECT_ID(${name}, N'U') IS NULL CREATE TABLE ${table} (` +
        'operation_id NVARCHAR(80) NOT NULL PRIMARY KEY, epoch BIGINT NOT NULL, status NVARCHAR(16) NOT NULL, ' +
        'committed_epoch BIGINT NULL, rows_written BIGINT NULL, intent_digest NVARCHAR(80) NULL, ' +
        'holder NVARCHAR(400) NULL, updated_at_ms BIGINT NOT NULL)',
      ...ADDED_FENCE_COLUMNS.map(
        (column) =>
          `IF COL_LENGTH(${name}, N'${column}') IS NULL ALTER TABLE ${table} ADD ${column} ` +
          `NVARCHAR(${column === 'holder' ? 400 : 80}) NULL`,
      ),
    ],
  };
}

/** The default fence (`dbo`): its statements, for tests and the fake driver's model. */
export const FENCE_SQL: FenceSql = mssqlFence(undefined).sql;

/** Statements sent as one batch: each ends with `;`. */
export function batchSql(statements: readonly string[]): string {
  return statements.map((s) => (s.endsWith(';') ? s : `${s};`)).join(' ');
}

/** The batch prepareFence sends (default fence): insert only when creating, then raise, then read. */
export function installFenceSql(create: boolean, sql: FenceSql = FENCE_SQL): string {
  return batchSql([...(create ? [sql.insertIfAbsent] : []), sql.raiseEpoch, sql.select]);
}
