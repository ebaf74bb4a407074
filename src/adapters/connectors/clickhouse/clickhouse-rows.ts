import { DponeError, ERROR_CODES } from '../../../contracts/errors.ts';
import type { SourceBatch } from '../../../ports/connector.ts';
import {
  CH_ERRORS,
  clickHouseErrorCode,
  EPOCH_COLUMN,
  OP_COLUMN,
  quoteName,
  quoteString,
  splitTable,
} from './clickhouse-config.ts';
import { ADDED_FENCE_LOG_COLUMNS, FENCE_TABLE, FENCE_TABLE_DDL } from './clickhouse-fence.ts';
import type { ClickHouseSql } from './clickhouse-session.ts';

export interface TargetShape {
  readonly table: string;
  readonly columns: readonly string[];
  readonly naturalKey: readonly string[];
  readonly partitionColumn: string;
}

/**
 * The target table DDL: String columns (Nullable outside the sort and partition keys), partitioned
 * by the workload's partition column (ATTACH/REPLACE PARTITION works on whole partitions), plus
 * the hidden generation columns. No unique key exists in ClickHouse, so a replay would show up as
 * duplicate rows.
 */
export function targetTableDdl(shape: TargetShape): string {
  const keyed = new Set([...shape.naturalKey, shape.partitionColumn]);
  const columns = shape.columns.map((c) => `${quoteName(c)} ${keyed.has(c) ? 'String' : 'Nullable(String)'}`);
  const order = shape.naturalKey.map(quoteName).join(', ');
  return (
    `CREATE TABLE IF NOT EXISTS ${quoteName(shape.table)} (${columns.join(', ')}, ` +
    `${OP_COLUMN} String, ${EPOCH_COLUMN} UInt64) ENGINE = MergeTree ` +
    `PARTITION BY ${quoteName(shape.partitionColumn)} ORDER BY (${order})`
  );
}

/**
 * Creates the fence and target tables when missing, then checks that the target carries the
 * generation columns and is partitioned by the partition column (an existing table may not be).
 */
export async function ensureTargetTables(
  sql: ClickHouseSql,
  shape: TargetShape,
  database: string,
): Promise<void> {
  for (const ddl of [FENCE_TABLE_DDL, targetTableDdl(shape)]) {
    try {
      await sql.command(ddl);
    } catch (error) {
      // Old servers can answer a racing CREATE … IF NOT EXISTS with "already exists": that is fine.
      if (clickHouseErrorCode(error) !== CH_ERRORS.TABLE_ALREADY_EXISTS) throw error;
    }
  }
  await addFenceLogColumns(sql, database);
  const where = splitTable(shape.table, database);
  const [described] = await sql.rows<{ partition_key: string; generation: string | number }>(
    `SELECT partition_key, (SELECT count() FROM system.columns WHERE database = ${quoteString(where.database)} ` +
      `AND table = ${quoteString(where.table)} AND name IN (${quoteString(OP_COLUMN)}, ${quoteString(EPOCH_COLUMN)})) AS generation ` +
      `FROM system.tables WHERE database = ${quoteString(where.database)} AND name = ${quoteString(where.table)}`,
  );
  const partitionKey = described?.partition_key.replaceAll('`', '');
  if (Number(described?.generation) !== 2 || partitionKey !== shape.partitionColumn) {
    throw new DponeError(
      ERROR_CODES.INVALID_INPUT,
      'the ClickHouse target table must carry _dpone_op/_dpone_epoch and be PARTITION BY the partition column',
      { field: 'target.table' },
    );
  }
}

/** A fence log created by an older version gains the intent and holder columns. */
async function addFenceLogColumns(sql: ClickHouseSql, database: string): Promise<void> {
  const present = await sql.rows<{ name: string }>(
    `SELECT name FROM system.columns WHERE database = ${quoteString(database)} AND table = ${quoteString(FENCE_TABLE)}`,
  );
  const names = new Set(present.map((c) => c.name));
  for (const column of ADDED_FENCE_LOG_COLUMNS) {
    if (names.has(column)) continue;
    await sql.command(`ALTER TABLE ${FENCE_TABLE} ADD COLUMN ${column} String DEFAULT ''`);
  }
}

/** The batch as JSONEachRow objects, every value as text (null kept outside the keys), tagged. */
export function taggedRows(
  batch: SourceBatch,
  operationId: string,
  epoch: number,
  keyed: ReadonlySet<string>,
): Record<string, unknown>[] {
  return batch.rows.map((row) => {
    const out: Record<string, unknown> = {};
    for (const column of batch.columns) {
      const value = row[column] ?? null;
      if (value === null && keyed.has(column)) {
        throw new DponeError(ERROR_CODES.INVALID_INPUT, 'a key or partition column holds NULL', {
          field: 'data.natural_key',
        });
      }
      out[column] = value === null ? null : String(value);
    }
    out[OP_COLUMN] = operationId;
    out[EPOCH_COLUMN] = epoch;
    return out;
  });
}
