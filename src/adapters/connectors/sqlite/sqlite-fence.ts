import type { SqliteDatabase } from './sqlite-connection.ts';
import { FENCE_TABLE } from '../marker-fence/marker-fence.ts';

/** The fence table of a SQLite target (the protocol is in ../marker-fence; the dialect in sqlite-dialect.ts). */
export { FENCE_TABLE };

export function ensureFenceTable(db: SqliteDatabase): void {
  db.exec(
    `CREATE TABLE IF NOT EXISTS ${FENCE_TABLE} (` +
      'operation_id TEXT PRIMARY KEY, epoch INTEGER NOT NULL, status TEXT NOT NULL, ' +
      'committed_epoch INTEGER, rows_written INTEGER, updated_at_ms INTEGER NOT NULL)',
  );
}
