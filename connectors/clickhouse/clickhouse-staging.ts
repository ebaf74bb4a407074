import { DponeError, ERROR_CODES } from '../../src/contracts/errors.ts';
import {
  CH_ERRORS,
  clickHouseErrorCode,
  quoteName,
  quoteString,
  stagingEpoch,
  stagingPrefix,
  stagingTableName,
  TOMBSTONE_COLUMN,
} from './clickhouse-config.ts';
import type { ClickHouseSql } from './clickhouse-session.ts';

/**
 * Staging tables and their seals. Epoch E of an operation stages into one deterministic name;
 * "sealing" that name means: drop whatever is there and put a tombstone (a `Log` table with one
 * unrelated column) in its place. A tombstone cannot be created over, inserted into with the
 * target's columns, or attached from (ATTACH/REPLACE PARTITION FROM needs a MergeTree of the same
 * structure), so once a name is sealed, nothing staged under it can reach the target any more.
 * DROP waits for an ATTACH that holds the table's structure lock (18.16 takes it shared in
 * replacePartitionFrom), so an attach in flight either finishes before the seal or fails.
 */
export interface StagingTable {
  readonly name: string;
  readonly epoch: number;
  /** A tombstone (sealed) rather than a live MergeTree staging table. */
  readonly sealed: boolean;
}

/** Every staging table and tombstone of one operation in `database`. */
export async function listStaging(
  sql: ClickHouseSql,
  database: string,
  operationId: string,
): Promise<StagingTable[]> {
  const prefix = stagingPrefix(operationId);
  const rows = await sql.rows<{ name: string; engine: string }>(
    `SELECT name, engine FROM system.tables WHERE database = ${quoteString(database)} ` +
      `AND startsWith(name, ${quoteString(prefix)})`,
  );
  const found: StagingTable[] = [];
  for (const row of rows) {
    const epoch = stagingEpoch(row.name, operationId);
    if (epoch !== null) found.push({ name: row.name, epoch, sealed: row.engine === 'Log' });
  }
  return found.sort((a, b) => a.epoch - b.epoch);
}

const SEAL_ATTEMPTS = 8;

/**
 * Seals epoch `epoch`'s staging name. Between our DROP and our CREATE a zombie may create the
 * name again (and even attach from it): the CREATE then fails and we drop and try again. When the
 * tombstone is in place, any attach from that name has either happened (its rows are in the
 * target, tagged with `epoch`) or can never happen. `onlyIfLive`: a writer sealing its own name
 * after a failure does nothing when the name is already sealed or gone (then nothing can be
 * attached from it), so it never leaves a tombstone behind a cleanup that already ran.
 */
export async function sealStaging(
  sql: ClickHouseSql,
  database: string,
  operationId: string,
  epoch: number,
  onlyIfLive = false,
): Promise<void> {
  const name = quoteName(`${database}.${stagingTableName(operationId, epoch)}`);
  for (let attempt = 0; attempt < SEAL_ATTEMPTS; attempt++) {
    const current = (await listStaging(sql, database, operationId)).find((t) => t.epoch === epoch);
    if (current?.sealed || (onlyIfLive && current === undefined)) return;
    if (current) await sql.command(`DROP TABLE IF EXISTS ${name}`);
    try {
      await sql.command(`CREATE TABLE ${name} (${TOMBSTONE_COLUMN} UInt8) ENGINE = Log`);
      return;
    } catch (error) {
      if (clickHouseErrorCode(error) !== CH_ERRORS.TABLE_ALREADY_EXISTS) throw error;
    }
  }
  throw new DponeError(
    ERROR_CODES.FENCE_UNAVAILABLE,
    'a stale staging table of this operation kept reappearing; it could not be sealed',
    { operationId },
  );
}

/**
 * Creates epoch `epoch`'s staging table with the target's exact structure (`CREATE TABLE … AS`
 * copies columns, engine, partition and sort key). Never `IF NOT EXISTS`: an existing name is a
 * tombstone (a newer holder sealed us) or another writer of our epoch, and both mean stop.
 * Returns false in that case.
 */
export async function createStaging(
  sql: ClickHouseSql,
  database: string,
  target: string,
  operationId: string,
  epoch: number,
  settings?: Readonly<Record<string, number>>,
): Promise<boolean> {
  const name = quoteName(`${database}.${stagingTableName(operationId, epoch)}`);
  try {
    await sql.command(`CREATE TABLE ${name} AS ${quoteName(target)}`, settings);
    return true;
  } catch (error) {
    if (clickHouseErrorCode(error) === CH_ERRORS.TABLE_ALREADY_EXISTS) return false;
    throw error;
  }
}

/** Drops a live staging table (cleanup after commit, or a dead same-epoch writer's leftover). */
export async function dropStaging(
  sql: ClickHouseSql,
  database: string,
  operationId: string,
  epoch: number,
): Promise<void> {
  await sql.command(
    `DROP TABLE IF EXISTS ${quoteName(`${database}.${stagingTableName(operationId, epoch)}`)}`,
  );
}

/**
 * Drops every tombstone of one operation. Called once the operation's commit is proven: a zombie
 * of a sealed epoch still cannot attach (its staging table is gone, and it re-reads the fence's
 * epoch after staging), so the tombstones have done their work and need not stay in the user's
 * database.
 */
export async function dropTombstones(
  sql: ClickHouseSql,
  database: string,
  operationId: string,
): Promise<void> {
  for (const table of await listStaging(sql, database, operationId)) {
    if (table.sealed) await sql.command(`DROP TABLE IF EXISTS ${quoteName(`${database}.${table.name}`)}`);
  }
}
