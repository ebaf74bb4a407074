import { FENCE_TABLE } from '../../src/adapters/connectors/marker-fence/marker-fence.ts';
import { ADDED_FENCE_COLUMNS } from '../../src/adapters/connectors/marker-fence/marker-sql.ts';
import type { SqliteDatabase } from './sqlite-connection.ts';

/**
 * Where a SQLite target's fence lives: always the `main` database of the target file, named with
 * its schema so no attached or `temp` database can shadow it (the protocol is in ../marker-fence;
 * the dialect in sqlite-dialect.ts).
 */
export const SQLITE_FENCE_TABLE = `main.${FENCE_TABLE}`;
export const SQLITE_FENCE_LOCATION = `sqlite:${SQLITE_FENCE_TABLE}`;

/** Creates the fence table, or adds the columns a table from an older version lacks. */
export function ensureFenceTable(db: SqliteDatabase): void {
  db.exec(
    `CREATE TABLE IF NOT EXISTS ${SQLITE_FENCE_TABLE} (` +
      'operation_id TEXT PRIMARY KEY, epoch INTEGER NOT NULL, status TEXT NOT NULL, ' +
      'committed_epoch INTEGER, rows_written INTEGER, intent_digest TEXT, holder TEXT, ' +
      'updated_at_ms INTEGER NOT NULL)',
  );
  const present = new Set(
    db
      .prepare(`PRAGMA main.table_info(${FENCE_TABLE})`)
      .all()
      .map((column) => String(column.name)),
  );
  for (const column of ADDED_FENCE_COLUMNS) {
    if (!present.has(column)) db.exec(`ALTER TABLE ${SQLITE_FENCE_TABLE} ADD COLUMN ${column} TEXT`);
  }
}
