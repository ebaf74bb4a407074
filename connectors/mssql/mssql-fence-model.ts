import { FENCE_SQL } from './mssql-fence.ts';
import type { FakeMssql, SeenQuery } from './mssql-fake-driver.ts';
import type { MssqlResult } from './mssql-session.ts';

interface FenceRow {
  epoch: number;
  status: string;
  committed_epoch: number | null;
  rows_written: number | null;
  intent_digest: string | null;
  holder: string | null;
}

/**
 * Test support: answers the fence statements from a map, as SQL Server would answer them one
 * session at a time (no locking, no rollback of the map: a refused guard changes nothing, so
 * nothing needs rolling back). A batch runs its statements in order. Data statements answer with
 * a rowcount. It is not a database, and nothing it proves stands in for a live SQL Server run.
 */
export function fenceModel(fake: FakeMssql, fallback?: (q: SeenQuery) => MssqlResult | undefined) {
  const fences = new Map<string, FenceRow>();
  const sql = FENCE_SQL;
  // The driver returns BIGINT columns as strings.
  const asRecord = (row: FenceRow | undefined) =>
    row === undefined
      ? []
      : [
          {
            ...row,
            epoch: String(row.epoch),
            committed_epoch: row.committed_epoch === null ? null : String(row.committed_epoch),
            rows_written: row.rows_written === null ? null : String(row.rows_written),
          },
        ];
  fake.respond = (q) => {
    const id = String(q.params.operation_id);
    const epoch = Number(q.params.epoch);
    const intent = q.params.intent_digest === undefined ? null : String(q.params.intent_digest);
    const holder = q.params.holder === undefined ? null : String(q.params.holder);
    const has = (statement: string) => q.text.includes(statement);
    if (has(sql.select) && !has('@@ROWCOUNT')) {
      if (has(sql.insertIfAbsent) && !fences.has(id)) {
        fences.set(id, {
          epoch,
          status: 'prepared',
          committed_epoch: null,
          rows_written: null,
          intent_digest: intent,
          holder,
        });
      }
      const row = fences.get(id);
      const anyIntent = has(sql.raiseEpochAnyIntent);
      if (row && (has(sql.raiseEpoch) || anyIntent) && row.epoch < epoch) {
        if (anyIntent || row.intent_digest === null || row.intent_digest === intent) {
          // A committed row keeps naming its committer (as the certified raise's CASE does).
          const keep = row.status === 'committed';
          Object.assign(row, {
            epoch,
            holder: keep ? row.holder : holder,
            intent_digest: row.intent_digest ?? intent,
          });
        }
      }
      return { recordset: asRecord(fences.get(id)), rowsAffected: [1] };
    }
    const guard = [sql.guard, sql.guardEpochOnly, sql.guardIgnoringEpoch].find((s) => q.text === s);
    if (guard !== undefined) {
      const row = fences.get(id);
      const open = row !== undefined && row.status !== 'committed' && row.intent_digest === intent;
      const hit =
        row !== undefined &&
        (guard === sql.guard
          ? open && row.epoch === epoch
          : guard === sql.guardEpochOnly
            ? row.epoch === epoch
            : open);
      if (hit) {
        Object.assign(row, {
          status: 'committed',
          committed_epoch: epoch,
          rows_written: q.params.rows_written,
        });
      }
      return { recordset: [{ affected: hit ? 1 : 0 }], rowsAffected: [hit ? 1 : 0, 1] };
    }
    if (q.text === sql.recordRows) {
      const row = fences.get(id);
      const hit = row !== undefined && row.status === 'committed' && row.committed_epoch === epoch;
      if (hit) row.rows_written = Number(q.params.rows_written);
      return { rowsAffected: [hit ? 1 : 0] };
    }
    const other = fallback?.(q);
    if (other) return other;
    return { rowsAffected: [q.rows?.length ?? Object.keys(q.params).length] };
  };
  return fences;
}

/** Data rows the fake saw bulk-loaded into the target in transactions that committed. */
export function committedRows(fake: FakeMssql, table = '[dbo].[events]'): number {
  const committed = new Set(fake.events.flatMap((e) => (e.kind === 'commit' ? [e.tx] : [])));
  return fake.queries
    .filter((q) => q.tx !== null && committed.has(q.tx) && q.text.startsWith(`INSERT BULK ${table} `))
    .reduce((sum, q) => sum + (q.rows?.length ?? 0), 0);
}
