/** The bulk-load bench's partition shape and the job a worker runs (shared by bulk-load.ts and its worker). */
export interface WorkerJob {
  readonly database: 'sqlite' | 'postgres';
  /** A scratch folder (SQLite files, state). */
  readonly dir: string;
  /** The target table, new for each run. */
  readonly table: string;
  /** PostgreSQL only: the cluster's URL (the password comes from DPONE_BENCH_PG_PASSWORD). */
  readonly url?: string;
}

export const BULK_COLUMNS = ['id', 'day', 'amount', 'label'];
export const BULK_TYPES = { id: 'bigint', day: 'text', amount: 'bigint', label: 'text' };
export const BULK_DAY = '2026-11-01';
