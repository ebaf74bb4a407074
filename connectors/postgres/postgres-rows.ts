import { DponeError, ERROR_CODES } from '../../src/contracts/errors.ts';
import type { TargetCreateSpec } from '../../src/contracts/workload.ts';
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
  /** Opens the session's pinned transaction (search_path, timeouts): table names resolve in it. */
  begin: (client: SqlClient) => Promise<void>,
  fence: PostgresFence,
  table: string,
  create: TargetCreateSpec | undefined,
  /** False for a target written without a fence (capability none): no fence table is made. */
  withFence = true,
): Promise<void> {
  await begin(client);
  const { rows } = await needing(`USAGE on schema ${fence.schema} and on the schema of ${table}`, () =>
    client.query(
      'SELECT to_regclass($2) IS NOT NULL AS target, to_regclass($1) IS NOT NULL AND EXISTS (SELECT 1 FROM ' +
        "pg_attribute WHERE attrelid = to_regclass($1) AND attname = 'holder' AND NOT attisdropped) AS fence",
      [fence.table, quoteTable(table)],
    ),
  );
  const found = rows[0] as { fence: boolean; target: boolean } | undefined;
  if (found?.target !== true && create === undefined) throw missingTarget();
  if ((found?.fence === true || !withFence) && found?.target === true) {
    await client.query('COMMIT');
    return;
  }
  await client.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK_KEY]);
  if (found?.fence !== true && withFence)
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
