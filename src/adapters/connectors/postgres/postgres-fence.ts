import { FENCE_TABLE } from '../marker-fence/marker-fence.ts';

/** The fence table of a PostgreSQL target (the protocol is in ../marker-fence; the dialect in postgres-dialect.ts). */
export { FENCE_TABLE };

export const FENCE_TABLE_DDL =
  `CREATE TABLE IF NOT EXISTS ${FENCE_TABLE} (operation_id TEXT PRIMARY KEY, epoch BIGINT NOT NULL, ` +
  'status TEXT NOT NULL, committed_epoch BIGINT, rows_written BIGINT, updated_at_ms BIGINT NOT NULL)';
