import { adminQuery } from './env/postgres-admin.ts';
import { closePools } from './env/postgres-pool.ts';
import type { PostgresEndpoint } from './env/postgres-services.ts';
import { Tripwire } from '../../../harness/env/tripwire.ts';
import type { PartSeal } from '../../../harness/routes/parts.ts';

/** What PostgreSQL itself counts for a table: scans and row changes (pg_stat_user_tables). */
type Counters = ReadonlyMap<string, string>;

const COUNTERS =
  "SELECT relname, concat_ws(',', seq_scan, seq_tup_read, coalesce(idx_scan, 0), n_tup_ins, n_tup_upd, n_tup_del) AS counted " +
  'FROM pg_stat_user_tables WHERE schemaname = $1';
const SETTLE_MS = 150;
const SETTLE_ROUNDS = 20;

async function counters(server: PostgresEndpoint, database: string, schema: string): Promise<Counters> {
  const [result] = await adminQuery(server, database, [COUNTERS], [schema]);
  return new Map(result!.rows.map((row: { relname: string; counted: string }) => [row.relname, row.counted]));
}

const same = (a: Counters, b: Counters) =>
  a.size === b.size && [...a].every(([table, counted]) => b.get(table) === counted);

/**
 * The server's statistics once they stopped moving: an ended worker's backend may still be
 * flushing what it counted when the seal starts.
 */
async function settledCounters(
  server: PostgresEndpoint,
  database: string,
  schema: string,
): Promise<Counters> {
  let last = await counters(server, database, schema);
  for (let round = 0; round < SETTLE_ROUNDS; round++) {
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const now = await counters(server, database, schema);
    if (same(now, last)) return now;
    last = now;
  }
  return last;
}

/**
 * Seals one PostgreSQL part of a cell (a source schema, or a target schema with its fence) for one
 * attempt: its workload URL points at a listener the harness owns (it counts every connection
 * and closes it unread), while the journal stays reachable. Afterwards the listener may have seen
 * no connection, and PostgreSQL's own statistics of the schema's tables (source, or target, fence
 * and audit: scans and row changes) must not have moved.
 */
export async function sealPostgresSchema(
  site: { readonly server: PostgresEndpoint; readonly database: string; readonly schema: string },
  role: 'source' | 'target',
  url: string,
): Promise<PartSeal> {
  const wire = await Tripwire.listen();
  // A kept connection flushes what it counted of these tables up to 10 s after its last use (an
  // idle backend's statistics interval): close them first, so their counts land before `before`.
  await closePools(site.server);
  const before = await settledCounters(site.server, site.database, site.schema);
  return {
    url: wire.standIn(url),
    sealed: `the ${role} server replaced by a listener the harness watches, table statistics of ${[...before.keys()].sort().join(', ')} compared`,
    async release() {
      const touched: string[] = [];
      if (wire.connections > 0) touched.push(`${wire.connections} connection(s) to the ${role} server`);
      await wire[Symbol.asyncDispose]();
      const after = await settledCounters(site.server, site.database, site.schema);
      for (const [table, counted] of before)
        if (after.get(table) !== counted)
          touched.push(`table ${table} (scans or row changes counted by PostgreSQL)`);
      return touched;
    },
  };
}
