import { Tripwire } from '../../../harness/env/tripwire.ts';
import type { PartSeal } from '../../../harness/routes/parts.ts';
import type { ClickHouseSite } from './clickhouse-fence-ops.ts';
import { clickhouseFingerprint } from './clickhouse-fence-ops.ts';

/**
 * Seals a ClickHouse target (the table, its staging tables and the fence log, all in the cell's
 * database) for one attempt: the workload's URL points at a listener the harness owns, which
 * counts every connection and closes it unread. Afterwards the listener may have seen no
 * connection, and the database's logical content as the server itself reports it (every table
 * with its rows, the fence log's records, the mutations) must be what it was: ClickHouse has no
 * per-table statistics of reads, so the listener is what shows a read.
 */
export async function sealClickHouseTarget(site: ClickHouseSite, url: string): Promise<PartSeal> {
  const wire = await Tripwire.listen();
  const before = await clickhouseFingerprint(site);
  return {
    url: wire.standIn(url),
    sealed: `the ClickHouse server replaced by a listener the harness watches; database ${site.database} (tables, rows, fence log, mutations) compared`,
    async release() {
      const touched: string[] = [];
      if (wire.connections > 0) touched.push(`${wire.connections} connection(s) to the ClickHouse server`);
      await wire[Symbol.asyncDispose]();
      if ((await clickhouseFingerprint(site)) !== before)
        touched.push(`database ${site.database} (its tables, rows or fence log changed)`);
      return touched;
    },
  };
}
