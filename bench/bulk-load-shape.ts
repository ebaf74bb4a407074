/** The bulk-load bench's partition shape and the job a worker runs (shared by bulk-load.ts and its worker). */
export interface WorkerJob {
  readonly database: 'sqlite' | 'postgres' | 'clickhouse';
  /** A scratch folder (SQLite files, state). */
  readonly dir: string;
  /** The target table, new for each run. */
  readonly table: string;
  /**
   * PostgreSQL: the cluster's URL (password from DPONE_BENCH_PG_PASSWORD). ClickHouse: the target
   * database's URL (password from DPONE_BENCH_CH_PASSWORD); the source is `source.db` in `dir`.
   */
  readonly url?: string;
  /**
   * The same rows through the same source connector and the target's same bulk path (SQLite's
   * prepared multi-row INSERT, PostgreSQL's COPY) in one plain transaction: no journal, lease, fence
   * or guard. What moving rows through a Node process costs, without the protocol.
   */
  readonly bare?: boolean;
}

export const BULK_COLUMNS = ['id', 'day', 'amount', 'label'];
export const BULK_TYPES = { id: 'bigint', day: 'text', amount: 'bigint', label: 'text' };
export const BULK_DAY = '2026-11-01';
