import { FENCE_SQL, installFenceSql } from './mssql-fence.ts';
import type { FakeMssql, SeenQuery } from './mssql-fake-driver.ts';
import type { MssqlResult } from './mssql-session.ts';

interface FenceRow {
  epoch: number;
  status: string;
  committed_epoch: number | null;
  rows_written: number | null;
}

/**
 * Test support: answers the fence statements from a map, as SQL Server would answer them one
 * session at a time (no locking, no rollback of the map). Data statements answer with a rowcount.
 */
export function fenceModel(fake: FakeMssql, fallback?: (q: SeenQuery) => MssqlResult | undefined) {
  const fences = new Map<string, FenceRow>();
  // The driver returns BIGINT columns as strings.
  const asRecord = (row: FenceRow | undefined) =>
    row === undefined
      ? []
      : [
          {
            epoch: String(row.epoch),
            status: row.status,
            committed_epoch: row.committed_epoch === null ? null : String(row.committed_epoch),
            rows_written: row.rows_written === null ? null : String(row.rows_written),
          },
        ];
  fake.respond = (q) => {
    const id = String(q.params.operation_id);
    const epoch = Number(q.params.epoch);
    const row = fences.get(id);
    if (q.text === installFenceSql(true) || q.text === installFenceSql(false)) {
      if (row === undefined)
        fences.set(id, { epoch, status: 'prepared', committed_epoch: null, rows_written: null });
      else if (q.text === installFenceSql(true) && row.epoch < epoch) row.epoch = epoch;
      return { recordset: asRecord(fences.get(id)), rowsAffected: [1] };
    }
    if (q.text === FENCE_SQL.guard || q.text === FENCE_SQL.guardIgnoringEpoch) {
      const hit = row !== undefined && (q.text === FENCE_SQL.guardIgnoringEpoch || row.epoch === epoch);
      if (hit)
        Object.assign(row, {
          status: 'committed',
          committed_epoch: epoch,
          rows_written: q.params.rows_written,
        });
      return { recordset: [{ affected: hit ? 1 : 0 }], rowsAffected: [hit ? 1 : 0, 1] };
    }
    if (q.text === FENCE_SQL.select) return { recordset: asRecord(row), rowsAffected: [row ? 1 : 0] };
    const other = fallback?.(q);
    if (other) return other;
    return { rowsAffected: [Object.keys(q.params).length] };
  };
  return fences;
}
