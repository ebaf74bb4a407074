import type { InspectorConnection } from './postgres-inspector.ts';
import { eachCursorRow, withInspectorClient } from './postgres-inspector.ts';
import type { SourceRows } from '../../../../harness/inspectors/source-rows.ts';
import type { CellScalar } from '../../../../harness/checkers/target-snapshot.ts';

const q = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * A PostgreSQL source partition read by the harness itself: its own short connection straight to
 * the server, every value as text under the inspector's fixed settings (ISO dates, UTC,
 * shortest-exact floats) whatever the role's session settings, the partition compared in the
 * column's own type.
 */
export function postgresSourceRows(options: {
  readonly connection: InspectorConnection;
  readonly schema: string;
  readonly table: string;
  readonly columns: readonly string[];
  readonly partition: { readonly column: string; readonly value: string };
}): SourceRows {
  const { schema, table, columns, partition } = options;
  const list = columns.map((c) => `${q(c)}::text AS ${q(c)}`).join(', ');
  const sql = `SELECT ${list} FROM ${q(schema)}.${q(table)} WHERE ${q(partition.column)} = $1`;
  return {
    identity: `postgres:${table}`,
    read: () =>
      withInspectorClient(options.connection, 'source', async (client) => {
        const { rows } = await client.query(sql, [partition.value]);
        return rows as Record<string, CellScalar>[];
      }),
    each: (visit) =>
      withInspectorClient(options.connection, 'source', async (client) => {
        await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
        const count = await eachCursorRow(client, sql, [partition.value], visit);
        await client.query('COMMIT');
        return count;
      }),
  };
}
