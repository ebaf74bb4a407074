import { DponeError, ERROR_CODES } from '../../../contracts/errors.ts';
import type { TargetCreateSpec } from '../../../contracts/workload.ts';
import type { RowStream } from '../../../ports/connector.ts';
import { quoteIdentifier, quoteTable } from './postgres-config.ts';
import { needing } from './postgres-errors.ts';
import type { PostgresFence } from './postgres-fence.ts';
import { fenceTableDdl } from './postgres-fence.ts';
import type { SqlClient } from './postgres-session.ts';

const SCHEMA_LOCK_KEY = 0x66656e63; // "fenc"

/** What creating (or upgrading) the fence table takes, and the DBA's alternative. */
const fenceCreate = (fence: PostgresFence) =>
  `CREATE on schema ${fence.schema} to create the fence table ${fence.schema}._dpone_fence (or owning it, to add the columns a newer dpone needs), or a DBA creates it once (examples/postgres/setup.sql)`;

function missingTarget(): DponeError {
  return new DponeError(ERROR_CODES.OBJECT_NOT_FOUND, 'target.table does not exist in the target database', {
    field: 'target.table',
    hint: 'create it (examples/postgres/setup.sql shows one), or set target.create.columns to let dpone create it; names are quoted and case-sensitive: dw.Events is not dw.events',
  });
}

/**
 * Creates the fence table (in its own schema) when missing or from an older version, and the
 * target table only when the workload opted in (`target.create`: its column types, deliberately
 * no keys); a missing target table is otherwise OBJECT_NOT_FOUND naming target.table. Skips all
 * DDL when both exist with every fence column, and takes an advisory lock otherwise, so 32 racing
 * workers never collide in the catalog.
 */
export async function ensureTargetTables(
  client: SqlClient,
  fence: PostgresFence,
  table: string,
  create: TargetCreateSpec | undefined,
): Promise<void> {
  const { rows } = await needing(`USAGE on schema ${fence.schema} and on the schema of ${table}`, () =>
    client.query(
      'SELECT to_regclass($2) IS NOT NULL AS target, to_regclass($1) IS NOT NULL AND EXISTS (SELECT 1 FROM ' +
        "pg_attribute WHERE attrelid = to_regclass($1) AND attname = 'holder' AND NOT attisdropped) AS fence",
      [fence.table, quoteTable(table)],
    ),
  );
  const found = rows[0] as { fence: boolean; target: boolean } | undefined;
  if (found?.target !== true && create === undefined) throw missingTarget();
  if (found?.fence === true && found.target === true) return;
  await client.query('BEGIN');
  await client.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK_KEY]);
  if (found?.fence !== true)
    await needing(fenceCreate(fence), async () => {
      for (const ddl of fenceTableDdl(fence)) await client.query(ddl);
    });
  if (found?.target !== true && create !== undefined) {
    const columns = Object.entries(create.columns).map(([name, type]) => `${quoteIdentifier(name)} ${type}`);
    await needing(`CREATE on the schema of ${table}`, () =>
      client.query(`CREATE TABLE IF NOT EXISTS ${quoteTable(table)} (${columns.join(', ')})`),
    );
  }
  await client.query('COMMIT');
}

/**
 * Deletes one partition's rows (replace-partition). The value compares in the column's own type
 * (the server types the parameter from the column), the same predicate the source read uses.
 */
export async function deletePartition(
  client: SqlClient,
  table: string,
  column: string,
  value: string,
): Promise<number> {
  const result = await client.query(
    `DELETE FROM ${quoteTable(table)} WHERE ${quoteIdentifier(column)} = $1`,
    [value],
  );
  return result.rowCount ?? 0;
}

const MAX_PARAMS = 60_000;

/** Inserts the stream with multi-row INSERTs; the caller owns the transaction. Returns the rows written. */
export async function insertRows(client: SqlClient, table: string, rows: RowStream): Promise<number> {
  const width = rows.columns.length;
  if (width === 0) return 0;
  const perStatement = Math.max(1, Math.floor(MAX_PARAMS / width));
  const head = `INSERT INTO ${quoteTable(table)} (${rows.columns.map(quoteIdentifier).join(', ')}) VALUES `;
  let written = 0;
  for await (const chunk of rows) {
    for (let start = 0; start < chunk.length; start += perStatement) {
      const slice = chunk.slice(start, start + perStatement);
      const values: unknown[] = [];
      const tuples = slice.map((row, r) => {
        values.push(...row);
        return `(${row.map((_, c) => `$${r * width + c + 1}`).join(', ')})`;
      });
      await client.query(head + tuples.join(', '), values);
    }
    written += chunk.length;
  }
  return written;
}
