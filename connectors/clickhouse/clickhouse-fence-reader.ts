import type { FenceAnswer, TargetConnector } from '../../src/ports/connector.ts';
import { noFenceAnswer } from '../../src/ports/connector.ts';
import { checkTableName, parseClickHouseUrl, quoteString, splitTable } from './clickhouse-config.ts';
import { FENCE_TABLE, fenceUnavailable } from './clickhouse-fence.ts';
import { readFence } from './clickhouse-reading.ts';
import { settlingError } from './clickhouse-replace.ts';
import { openClickHouseSql } from './clickhouse-session.ts';
import type { ClickHouseSql } from './clickhouse-session.ts';

export type ClickHouseFenceReader = Pick<TargetConnector, 'queryFence'> & AsyncDisposable;

async function fenceTableExists(sql: ClickHouseSql, database: string): Promise<boolean> {
  const rows = await sql.rows<{ name: string }>(
    `SELECT name FROM system.tables WHERE database = ${quoteString(database)} AND name = ${quoteString(FENCE_TABLE)}`,
  );
  return rows.length > 0;
}

/**
 * The fence of a ClickHouse target, read for `recovery inspect|plan|apply` on a connection the
 * server holds read-only (`readonly=1`): unlike opening the target, it creates no table and never
 * settles a replace (a replace still settling is FENCE_UNAVAILABLE, as for the target). No fence
 * table at all is no fence: `unknown` with no epoch, as for the target (a lost log proves nothing).
 */
export async function openClickHouseFenceReader(options: {
  readonly url: string;
  readonly password?: string;
  readonly table: string;
  readonly partitionColumn: string;
  readonly sql?: ClickHouseSql;
}): Promise<ClickHouseFenceReader> {
  checkTableName(options.table, 'target.table');
  const endpoint = parseClickHouseUrl(options.url, options.password, 'target.url');
  const sql = options.sql ?? (await openClickHouseSql(endpoint, { readOnly: true }));
  const where = splitTable(options.table, endpoint.database);
  const site = {
    sql,
    database: where.database,
    table: `${where.database}.${where.table}`,
    partitionColumn: options.partitionColumn,
    settleWaitMs: 2_000,
  };
  return {
    async queryFence(operationId: string): Promise<FenceAnswer> {
      let reading;
      try {
        if (!(await fenceTableExists(sql, endpoint.database))) return noFenceAnswer();
        reading = await readFence(site, operationId);
      } catch (error) {
        throw fenceUnavailable(operationId, error);
      }
      if (reading.settlement !== 'durable') throw settlingError(operationId, reading.settlement);
      return reading.answer;
    },
    [Symbol.asyncDispose]: () => sql.close(),
  };
}
