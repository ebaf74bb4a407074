import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { adminQuery } from '../env/postgres-admin.ts';
import type { PostgresEndpoint } from '../env/postgres-services.ts';
import { Tripwire } from '../env/tripwire.ts';
import type { StorageSeal } from '../faults/storage-seal.ts';

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

function pointedAt(url: string, wire: Tripwire): string {
  const parsed = new URL(url);
  parsed.hostname = wire.host;
  parsed.port = String(wire.port);
  return parsed.toString();
}

/**
 * Seals a PostgreSQL cell's source, target and fence for one attempt: its workload's source and
 * target URLs point at two listeners the harness owns (each counts every connection and closes it
 * unread), while the journal stays reachable. Afterwards no listener may have seen a connection,
 * and PostgreSQL's own statistics of the cell's tables (source, target, fence, audit: scans and
 * row changes) must not have moved.
 */
export async function sealPostgresStorage(
  cell: {
    readonly dir: string;
    readonly server: PostgresEndpoint;
    readonly database: string;
    readonly schema: string;
  },
  workloadFile: string,
): Promise<StorageSeal> {
  const source = await Tripwire.listen();
  const target = await Tripwire.listen();
  const document = parse(await readFile(workloadFile, 'utf8')) as {
    source: { url: string };
    target: { url: string };
  };
  document.source.url = pointedAt(document.source.url, source);
  document.target.url = pointedAt(document.target.url, target);
  const sealed = join(cell.dir, 'workload-sealed.yaml');
  await writeFile(sealed, stringify(document));
  const before = await settledCounters(cell.server, cell.database, cell.schema);
  return {
    workloadFile: sealed,
    sealed: `source and target servers replaced by listeners the harness watches, table statistics of ${[...before.keys()].sort().join(', ')} compared`,
    async release() {
      const touched: string[] = [];
      if (source.connections > 0) touched.push(`${source.connections} connection(s) to the source server`);
      if (target.connections > 0) touched.push(`${target.connections} connection(s) to the target server`);
      await source[Symbol.asyncDispose]();
      await target[Symbol.asyncDispose]();
      const after = await settledCounters(cell.server, cell.database, cell.schema);
      for (const [table, counted] of before)
        if (after.get(table) !== counted)
          touched.push(`table ${table} (scans or row changes counted by PostgreSQL)`);
      return touched;
    },
  };
}
