import { join } from 'node:path';
import { FENCE_TABLE } from 'dpone-cert';
import type {
  CellScalar,
  CellTable,
  FenceLocationReading,
  PluginHarness,
  PreparedTarget,
  TargetRows,
} from 'dpone-cert/testing';
import { quote, withCommittedView, withSession } from './duckdb-database.ts';

const RENAMED_FENCE = `${FENCE_TABLE}_lost`;
const AUDIT_SEQUENCE = '_dpone_audit_seq';

/**
 * The harness's audit, installed in the target itself: three columns the database fills for every
 * inserted row and the connector never names — the inserting transaction's id and start time (one
 * mutation = one transaction; the id alone restarts with each process, the pair does not) and a
 * sequence for commit order. DuckDB has no triggers; column defaults are its own record.
 */
function auditedTableDdl(table: CellTable): string {
  const columns = table.columns.map(
    (column) => `${quote(column.name)} ${column.type === 'integer' ? 'BIGINT' : 'VARCHAR'}`,
  );
  return (
    `CREATE TABLE IF NOT EXISTS ${quote(table.name)} (${columns.join(', ')}, ` +
    '_audit_tx BIGINT DEFAULT txid_current(), _audit_at TIMESTAMP DEFAULT current_timestamp, ' +
    `_audit_seq BIGINT DEFAULT nextval('${AUDIT_SEQUENCE}'))`
  );
}

async function readLocation(path: string, where: string, operationId: string): Promise<FenceLocationReading> {
  return withCommittedView(path, async (session) => {
    const found = await session.run(
      "SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = 'main' AND table_name = @table",
      { table: where },
    );
    if (Number(found.rows[0]?.n ?? 0) === 0) return { where, table: false, status: null, epoch: null };
    const row = (
      await session.run(`SELECT status, epoch FROM ${quote(where)} WHERE operation_id = @operation_id`, {
        operation_id: operationId,
      })
    ).rows[0];
    return {
      where,
      table: true,
      status: row ? String(row.status) : null,
      epoch: row ? Number(row.epoch) : null,
    };
  });
}

function prepared(cellDir: string, table: CellTable): PreparedTarget {
  const path = join(cellDir, 'target.duckdb');
  return {
    // Absolute: a worker may run in another folder (an Airflow try runs its workload from a try folder).
    endpoint: { url: `duckdb:${path}`, table: table.name },
    identity: `duckdb:${table.name}`,
    installAudit: () =>
      withSession(path, false, async (session) => {
        await session.run(`CREATE SEQUENCE IF NOT EXISTS ${AUDIT_SEQUENCE}`);
        await session.run(auditedTableDdl(table));
      }),
    read: () =>
      withCommittedView(path, async (session): Promise<TargetRows> => {
        const names = table.columns.map((column) => quote(column.name)).join(', ');
        const result = await session.run(
          `SELECT ${names}, _audit_tx, epoch_us(_audit_at) AS _audit_us FROM ${quote(table.name)} ORDER BY _audit_seq`,
        );
        const rows = result.rows.map((row) =>
          Object.fromEntries(table.columns.map((column) => [column.name, row[column.name] as CellScalar])),
        );
        return {
          rows,
          // Every row is one audited insert; its marker is the transaction that inserted it.
          inserts: result.rows.map((row, index) => ({
            key: Object.fromEntries(table.naturalKey.map((name) => [name, rows[index]![name]!])),
            marker: `${String(row._audit_tx)}@${String(row._audit_us)}`,
          })),
          markerKind: 'transaction',
        };
      }),
    fence: {
      drop: () =>
        withSession(
          path,
          false,
          async (session) => void (await session.run(`DROP TABLE IF EXISTS ${FENCE_TABLE}`)),
        ),
      rename: () =>
        withSession(path, false, async (session) => {
          await session.run(`ALTER TABLE ${FENCE_TABLE} RENAME TO ${RENAMED_FENCE}`).catch(() => undefined);
        }),
      read: async (operationId) => ({
        locations: [
          await readLocation(path, FENCE_TABLE, operationId),
          await readLocation(path, RENAMED_FENCE, operationId),
        ],
      }),
    },
    [Symbol.asyncDispose]: async () => undefined,
  };
}

/**
 * Every table of the target (the fence's too), rows sorted, without the audit columns the database
 * fills per transaction: what a recovery from this state sees.
 */
async function dumpState(path: string): Promise<string> {
  return withSession(path, false, async (session) => {
    const tables = await session.run(
      "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'main' ORDER BY table_name",
    );
    const dumps: string[] = [];
    for (const { name } of tables.rows) {
      const rows = (await session.run(`SELECT * FROM ${quote(String(name))}`)).rows.map((row) =>
        JSON.stringify(
          Object.entries(row)
            .filter(([column]) => !column.startsWith('_audit_'))
            .map(([column, value]) => [column, typeof value === 'bigint' ? String(value) : value]),
        ),
      );
      dumps.push(`${String(name)}\n${rows.sort().join('\n')}`);
    }
    return dumps.join('\n\n');
  });
}

/** The harness parts `dpone certify run` composes into the route sqlite-to-duckdb. */
export const duckdbHarness: PluginHarness = {
  routes: [{ id: 'sqlite-to-duckdb', source: 'sqlite' }],
  target: {
    prepare: async (cellDir, table) => prepared(cellDir, table),
    // The whole durable target: the database and its write-ahead log (present after a kill).
    stateFiles: ['target.duckdb', 'target.duckdb.wal'],
    dumpState: (cellDir) => dumpState(join(cellDir, 'target.duckdb')),
  },
  fenceLossModes: ['drop', 'rename'],
};
