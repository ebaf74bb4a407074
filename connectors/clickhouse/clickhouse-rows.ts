import { DponeError, ERROR_CODES } from '../../src/contracts/errors.ts';
import type { ErrorCode } from '../../src/contracts/errors.ts';
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
  /** Always `database.table`. */
  readonly table: string;
  readonly columns: readonly string[];
  readonly naturalKey: readonly string[];
  readonly partitionColumn: string;
  /** The partition column's ClickHouse type, once read from the server (numbers are unquoted in PARTITION). */
  readonly partitionType?: string;
  /** The server's type of each of `columns`, in order, once read (value rules: clickhouse-value-rules.ts). */
  readonly columnTypes?: readonly string[];
  /**
   * Settings the swap of an EMPTY staging table needs on this server: releases after 18.16 refuse
   * `REPLACE PARTITION … FROM` an empty source unless `allow_replace_partition_from_empty_source`
   * is set, and 18.16 refuses that unknown setting. So it is sent only where the server has it.
   */
  readonly emptyReplaceSettings?: Readonly<Record<string, number>>;
  /**
   * Settings `CREATE TABLE staging AS target` needs: 18.16 refuses to create a LowCardinality
   * column (server code 44) unless `allow_experimental_low_cardinality_type` is set in the session;
   * sent only when the target has such a column and the server knows the setting.
   */
  readonly stagingSettings?: Readonly<Record<string, number>>;
}

export const EMPTY_REPLACE_SETTING = 'allow_replace_partition_from_empty_source';
export const LOW_CARDINALITY_SETTING = 'allow_experimental_low_cardinality_type';

/**
 * The target table DDL used when the table does not exist: String columns (Nullable outside the
 * sort and partition keys), partitioned by the workload's partition column (ATTACH/REPLACE
 * PARTITION works on whole partitions), plus the hidden generation columns. No unique key exists
 * in ClickHouse, so a replay would show up as duplicate rows.
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

const NUMERIC = /^(U?Int(8|16|32|64|128|256)|Float(32|64))$/;

/** The partition as a literal for PARTITION …: a number unquoted for a numeric key, else a string. */
export function partitionLiteral(shape: TargetShape, value: string): string {
  if (shape.partitionType === undefined || !NUMERIC.test(shape.partitionType)) return quoteString(value);
  if (!/^-?\d+(\.\d+)?$/.test(value)) {
    throw new DponeError(
      ERROR_CODES.INVALID_INPUT,
      'data.partition.value is not a number, but the target partitions by a number',
      {
        field: 'data.partition.value',
      },
    );
  }
  return value;
}

function refuse(code: ErrorCode, why: string, hint: string): DponeError {
  return new DponeError(code, `the ClickHouse target table ${why}`, { field: 'target.table', hint });
}

const SHAPE_HINT =
  'a plain MergeTree PARTITION BY the partition column, with _dpone_op String and _dpone_epoch UInt64 (see README "ClickHouse")';

export interface DescribedTable {
  readonly engine: string;
  readonly partitionKey: string;
  readonly columns: ReadonlyMap<string, { readonly type: string; readonly defaultKind: string }>;
  /** Tables that depend on it (materialized views), as system.tables lists them; absent: unknown. */
  readonly dependants?: readonly string[];
}

async function describe(sql: ClickHouseSql, database: string, table: string): Promise<DescribedTable | null> {
  const where = `database = ${quoteString(database)}`;
  const [found] = await sql.rows<{ engine: string; partition_key: string; dependencies_table: string[] }>(
    `SELECT engine, partition_key, dependencies_table FROM system.tables WHERE ${where} AND name = ${quoteString(table)}`,
  );
  if (found === undefined) return null;
  const columns = await sql.rows<{ name: string; type: string; default_kind: string }>(
    `SELECT name, type, default_kind FROM system.columns WHERE ${where} AND table = ${quoteString(table)}`,
  );
  return {
    engine: found.engine,
    partitionKey: found.partition_key.replaceAll('`', ''),
    dependants: found.dependencies_table,
    columns: new Map(columns.map((c) => [c.name, { type: c.type, defaultKind: c.default_kind }])),
  };
}

/**
 * Refuses a table the protocol cannot keep its promises on (non-retry, before anything is written):
 * - not a plain MergeTree: a Replacing/Collapsing/Summing/Aggregating/Versioned engine merges rows
 *   away (a staged part would no longer hold the batch), a Replicated one needs a different swap;
 * - not PARTITION BY the partition column, or without the generation columns: no swap, no proof;
 * - a workload column the table lacks (OBJECT_NOT_FOUND), or one the table computes (MATERIALIZED/ALIAS);
 * - dependants (materialized views): the swap never fires them, so they would miss every row.
 * Columns the workload does not carry are filled by the table's DEFAULT expressions.
 */
export function checkTargetTable(described: DescribedTable, shape: TargetShape): void {
  if (described.engine !== 'MergeTree') {
    throw refuse(
      ERROR_CODES.INVALID_INPUT,
      `uses engine ${described.engine}; only plain MergeTree is supported`,
      SHAPE_HINT,
    );
  }
  if (described.dependants && described.dependants.length > 0) {
    throw refuse(
      ERROR_CODES.INVALID_INPUT,
      `has dependants (${described.dependants.join(', ')}: materialized views) that dpone's partition swap would bypass`,
      'ATTACH/REPLACE PARTITION never fires materialized views, so they would silently miss the rows: load the table with a plain INSERT path, or attach the view to another table',
    );
  }
  const op = described.columns.get(OP_COLUMN);
  const epoch = described.columns.get(EPOCH_COLUMN);
  if (op?.type !== 'String' || epoch?.type !== 'UInt64' || described.partitionKey !== shape.partitionColumn) {
    throw refuse(
      ERROR_CODES.INVALID_INPUT,
      'must carry _dpone_op String and _dpone_epoch UInt64 and be PARTITION BY the partition column',
      SHAPE_HINT,
    );
  }
  for (const column of shape.columns) {
    const found = described.columns.get(column);
    if (found === undefined) {
      throw refuse(
        ERROR_CODES.OBJECT_NOT_FOUND,
        `has no column ${column}`,
        'add the column or remove it from data.columns',
      );
    }
    if (found.defaultKind === 'MATERIALIZED' || found.defaultKind === 'ALIAS') {
      throw refuse(
        ERROR_CODES.INVALID_INPUT,
        `computes column ${column} (${found.defaultKind})`,
        'leave it out of data.columns',
      );
    }
  }
}

/**
 * A fence log created by an older version gains the columns it lacks. A concurrent worker may add
 * one first: then the ALTER fails and the column is there.
 */
async function addFenceLogColumns(sql: ClickHouseSql, database: string): Promise<void> {
  const present = (await describe(sql, database, FENCE_TABLE))?.columns;
  for (const column of ADDED_FENCE_LOG_COLUMNS) {
    if (present === undefined || present.has(column)) continue;
    await sql
      .command(`ALTER TABLE ${FENCE_TABLE} ADD COLUMN ${column} String DEFAULT ''`)
      .catch(async (error: unknown) => {
        if (!(await describe(sql, database, FENCE_TABLE))?.columns.has(column)) throw error;
      });
  }
}

/**
 * Creates the fence log when missing (in the session's database, as every fence statement names
 * it). Only a first preparation (`mode.create`) may; an existing older log got its new columns
 * when the target was opened.
 */
export async function createFenceLog(sql: ClickHouseSql): Promise<void> {
  await createIfMissing(sql, FENCE_TABLE_DDL);
}

async function createIfMissing(sql: ClickHouseSql, ddl: string): Promise<void> {
  try {
    await sql.command(ddl);
  } catch (error) {
    // Old servers can answer a racing CREATE … IF NOT EXISTS with "already exists": that is fine.
    if (clickHouseErrorCode(error) !== CH_ERRORS.TABLE_ALREADY_EXISTS) throw error;
  }
}

/**
 * Creates the target table when missing, gives an existing fence log from an older version its new
 * columns, checks the target's shape, and returns the shape with the partition column's type. The
 * fence log itself is NOT created here: opening happens on every attempt, and outside the first
 * preparation a missing fence was lost and must stay missing (the port's `create` rule).
 */
export async function ensureTargetTables(
  sql: ClickHouseSql,
  shape: TargetShape,
  database: string,
): Promise<TargetShape> {
  await createIfMissing(sql, targetTableDdl(shape));
  await addFenceLogColumns(sql, database);
  const where = splitTable(shape.table, database);
  const described = await describe(sql, where.database, where.table);
  if (described === null) throw refuse(ERROR_CODES.OBJECT_NOT_FOUND, 'does not exist', SHAPE_HINT);
  checkTargetTable(described, shape);
  const [setting] = await sql.rows<{ name: string }>(
    `SELECT name FROM system.settings WHERE name = ${quoteString(EMPTY_REPLACE_SETTING)}`,
  );
  const lowCardinality = [...described.columns.values()].some((c) => c.type.includes('LowCardinality('));
  const [allowLow] = lowCardinality
    ? await sql.rows<{ name: string }>(
        `SELECT name FROM system.settings WHERE name = ${quoteString(LOW_CARDINALITY_SETTING)}`,
      )
    : [];
  return {
    stagingSettings: allowLow ? { [LOW_CARDINALITY_SETTING]: 1 } : {},
    ...shape,
    partitionType: described.columns.get(shape.partitionColumn)?.type ?? 'String',
    columnTypes: shape.columns.map((c) => described.columns.get(c)?.type ?? 'String'),
    emptyReplaceSettings: setting ? { [EMPTY_REPLACE_SETTING]: 1 } : {},
  };
}
