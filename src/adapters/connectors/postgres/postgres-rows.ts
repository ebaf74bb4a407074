import type { SourceBatch } from '../../../ports/connector.ts';
import { quoteIdentifier, quoteTable } from './postgres-config.ts';
import type { PostgresFence } from './postgres-fence.ts';
import { fenceTableDdl } from './postgres-fence.ts';
import type { SqlClient } from './postgres-session.ts';

const SCHEMA_LOCK_KEY = 0x66656e63; // "fenc"

/**
 * Creates the fence table (in its own schema) and, when missing, the target table (TEXT columns,
 * deliberately no unique key: a replay must show up as duplicate rows). Skips all DDL when both
 * exist with every fence column, and takes an advisory lock otherwise, so 32 racing workers never
 * collide in the catalog.
 */
export async function ensureTargetTables(
  client: SqlClient,
  fence: PostgresFence,
  table: string,
  columns: readonly string[],
): Promise<void> {
  const exists = await client.query(
    'SELECT to_regclass($1) IS NOT NULL AND to_regclass($2) IS NOT NULL AND EXISTS (SELECT 1 FROM ' +
      "pg_attribute WHERE attrelid = to_regclass($1) AND attname = 'holder' AND NOT attisdropped) AS ok",
    [fence.table, quoteTable(table)],
  );
  if (exists.rows[0]?.ok === true) return;
  await client.query('BEGIN');
  await client.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK_KEY]);
  for (const ddl of fenceTableDdl(fence)) await client.query(ddl);
  await client.query(
    `CREATE TABLE IF NOT EXISTS ${quoteTable(table)} (${columns.map((c) => `${quoteIdentifier(c)} TEXT`).join(', ')})`,
  );
  await client.query('COMMIT');
}

/** Deletes one partition's rows (replace-partition); values compare as text, as the request carries them. */
export async function deletePartition(
  client: SqlClient,
  table: string,
  column: string,
  value: string,
): Promise<number> {
  const result = await client.query(
    `DELETE FROM ${quoteTable(table)} WHERE ${quoteIdentifier(column)}::text = $1`,
    [value],
  );
  return result.rowCount ?? 0;
}

const MAX_PARAMS = 60_000;

/** Inserts the batch with multi-row INSERTs; the caller owns the transaction. Returns the rows written. */
export async function insertRows(client: SqlClient, table: string, batch: SourceBatch): Promise<number> {
  const width = batch.columns.length;
  if (width === 0 || batch.rows.length === 0) return 0;
  const perStatement = Math.max(1, Math.floor(MAX_PARAMS / width));
  const head = `INSERT INTO ${quoteTable(table)} (${batch.columns.map(quoteIdentifier).join(', ')}) VALUES `;
  for (let start = 0; start < batch.rows.length; start += perStatement) {
    const rows = batch.rows.slice(start, start + perStatement);
    const values: unknown[] = [];
    const tuples = rows.map((row, r) => {
      for (const column of batch.columns) values.push(row[column] ?? null);
      return `(${batch.columns.map((_, c) => `$${r * width + c + 1}`).join(', ')})`;
    });
    await client.query(head + tuples.join(', '), values);
  }
  return batch.rows.length;
}
