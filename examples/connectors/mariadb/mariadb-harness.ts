import { createHash } from 'node:crypto';
import { FENCE_TABLE } from 'dpone-cert';
import type {
  CellScalar,
  CellTable,
  FenceLocationReading,
  PluginHarness,
  PrepareOptions,
  PreparedTarget,
  TargetRows,
} from 'dpone-cert/testing';
import type { MariadbAddress } from './mariadb-database.ts';
import { quote, withSession } from './mariadb-database.ts';
import { TABLE_OPTIONS } from './mariadb-dialect.ts';
import { MariadbServer } from './mariadb-server.ts';

const RENAMED_FENCE = `${FENCE_TABLE}_lost`;
/** The variable the workers read the password from (the workload names it, never the value). */
export const PASSWORD_ENV = 'DPONE_MARIADB_PASSWORD';

/**
 * The workers' client bounds: a connection opens within 8 s and a statement answers within 15 s,
 * so a black-holed or silent proxy (network and lost-ack cells) ends a worker's call instead of
 * hanging it. 15 s stays under the server's 50 s lock wait and above what the cells' statements
 * take, so a worker waiting on a lock another holds still waits as it did.
 */
export const WORKER_TIMEOUTS = 'connect_timeout_ms=8000&query_timeout_ms=15000';

let shared: Promise<MariadbServer> | undefined;

/**
 * ONE throw-away mariadbd per certify run: started by the first cell that needs it, in the harness
 * process (workers only connect to it). It is stopped and its folder removed when the run's process
 * runs out of work (`beforeExit`), and by its watchdog should the process die first.
 */
export function harnessServer(): Promise<MariadbServer> {
  shared ??= MariadbServer.start().then(
    (server) => {
      process.once('beforeExit', () => void stopHarnessServer());
      return server;
    },
    (error: unknown) => {
      shared = undefined;
      throw error;
    },
  );
  return shared;
}

/** Stops the run's server (tests; the run itself stops it on beforeExit). */
export async function stopHarnessServer(): Promise<void> {
  const server = shared;
  shared = undefined;
  if (server) await (await server)[Symbol.asyncDispose]();
}

/** A database per cell, named after the cell folder (cells run concurrently: never a fixed name). */
export const cellDatabase = (cellDir: string): string =>
  `cell_${createHash('sha256').update(cellDir).digest('hex').slice(0, 24)}`;

/**
 * The harness's audit, installed in the target itself: the table is system-versioned by
 * transaction (MariaDB's transaction-precise history), so the database records for every row it
 * ever inserted the id of the inserting transaction (`_audit_start`), and
 * `mysql.transaction_registry` their commit order. The connector never names these columns
 * (INVISIBLE), and a row a later transaction deleted stays in the history with its inserter.
 */
function auditedTableDdl(table: CellTable): string {
  const columns = table.columns.map(
    (column) => `${quote(column.name)} ${column.type === 'integer' ? 'BIGINT' : 'LONGTEXT'} NULL`,
  );
  return (
    `CREATE TABLE ${quote(table.name)} (${columns.join(', ')}, ` +
    '_audit_start BIGINT UNSIGNED GENERATED ALWAYS AS ROW START INVISIBLE, ' +
    '_audit_end BIGINT UNSIGNED GENERATED ALWAYS AS ROW END INVISIBLE, ' +
    `PERIOD FOR SYSTEM_TIME(_audit_start, _audit_end)) ${TABLE_OPTIONS} WITH SYSTEM VERSIONING`
  );
}

function scalar(value: unknown, type: 'integer' | 'text'): CellScalar {
  if (value === null || value === undefined) return null;
  return type === 'integer' ? BigInt(String(value)) : String(value);
}

async function readLocation(
  address: MariadbAddress,
  where: string,
  operationId: string,
): Promise<FenceLocationReading> {
  return withSession(address, async (session) => {
    const found = await session.runValues(
      'SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ?',
      [where],
    );
    if (Number(found.rows[0]?.n ?? 0) === 0) return { where, table: false, status: null, epoch: null };
    const row = (
      await session.runValues(`SELECT status, epoch FROM ${quote(where)} WHERE operation_id = ?`, [
        operationId,
      ])
    ).rows[0];
    return {
      where,
      table: true,
      status: row ? String(row.status) : null,
      epoch: row ? Number(row.epoch) : null,
    };
  });
}

/** Ends what a cell's workers left connected to its database (a stopped worker's), then drops it. */
async function dropDatabase(server: MariadbServer, database: string): Promise<void> {
  await withSession(server.address('mysql'), async (session) => {
    const left = await session.runValues(
      'SELECT id FROM information_schema.processlist WHERE db = ? AND id <> CONNECTION_ID()',
      [database],
    );
    for (const { id } of left.rows) await session.runValues(`KILL ${Number(id)}`).catch(() => undefined);
    await session.runValues(`DROP DATABASE IF EXISTS ${quote(database)}`);
  });
}

async function prepared(
  cellDir: string,
  table: CellTable,
  options: PrepareOptions = {},
): Promise<PreparedTarget> {
  // A server-kill cell's target is on a mariadbd of its own (killed and started again by the
  // harness through `control`); every other cell's on the run's shared one.
  const own = options.dedicated === true ? await MariadbServer.start() : undefined;
  const server = own ?? (await harnessServer());
  const database = cellDatabase(cellDir);
  try {
    await withSession(server.address('mysql'), (session) =>
      session.runValues(`CREATE DATABASE ${quote(database)} CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin`),
    );
  } catch (error) {
    await own?.[Symbol.asyncDispose]();
    throw error;
  }
  const address = server.address(database);
  let disposed = false;
  return {
    endpoint: {
      url: `${server.url(database)}?${WORKER_TIMEOUTS}`,
      table: table.name,
      password_env: PASSWORD_ENV,
    },
    env: { [PASSWORD_ENV]: server.password },
    // Where the URL reaches the server: the harness seals the target for the intent-conflict cell
    // by re-pointing this host:port at a listener it watches (the server itself stays up), and
    // (`network` below) puts each cell's workers behind a Toxiproxy proxy in front of it.
    server: { host: server.host, port: server.port },
    ...(own ? { control: { kill: (signal) => own.kill(signal), start: () => own.restart() } } : {}),
    identity: `mariadb:${table.name}`,
    installAudit: () =>
      withSession(address, async (session) => void (await session.runValues(auditedTableDdl(table)))),
    read: () =>
      withSession(address, async (session): Promise<TargetRows> => {
        const names = table.columns.map((column) => quote(column.name)).join(', ');
        const toRow = (row: Record<string, unknown>) =>
          Object.fromEntries(
            table.columns.map((column) => [column.name, scalar(row[column.name], column.type)]),
          );
        const current = await session.runValues(`SELECT ${names} FROM ${quote(table.name)}`);
        // Every row version ever inserted, with its inserting transaction, in commit order.
        const history = await session.runValues(
          `SELECT ${names}, t._audit_start AS _audit_tx FROM ${quote(table.name)} FOR SYSTEM_TIME ALL AS t ` +
            'LEFT JOIN mysql.transaction_registry r ON r.transaction_id = t._audit_start ' +
            `ORDER BY r.commit_id, ${table.naturalKey.map(quote).join(', ')}`,
        );
        return {
          rows: current.rows.map(toRow),
          inserts: history.rows.map((row) => {
            const values = toRow(row);
            return {
              key: Object.fromEntries(table.naturalKey.map((name) => [name, values[name]!])),
              marker: row._audit_tx === null ? null : String(row._audit_tx),
            };
          }),
          markerKind: 'transaction',
        };
      }),
    fence: {
      drop: () =>
        withSession(
          address,
          async (session) => void (await session.runValues(`DROP TABLE IF EXISTS ${quote(FENCE_TABLE)}`)),
        ),
      rename: () =>
        withSession(address, async (session) => {
          await session
            .runValues(`RENAME TABLE ${quote(FENCE_TABLE)} TO ${quote(RENAMED_FENCE)}`)
            .catch(() => undefined);
        }),
      read: async (operationId) => ({
        locations: [
          await readLocation(address, FENCE_TABLE, operationId),
          await readLocation(address, RENAMED_FENCE, operationId),
        ],
      }),
    },
    // The cell is done (its checks and evidence written): its database goes, the server stays for
    // the run; a server of the cell's own is stopped and its folder removed.
    [Symbol.asyncDispose]: async () => {
      if (disposed) return;
      disposed = true;
      if (own) await own[Symbol.asyncDispose]();
      else await dropDatabase(server, database);
    },
  };
}

/**
 * The harness parts `dpone certify run` composes into the route sqlite-to-mariadb. No state files:
 * the target lives in a server, not in the cell folder, so no recorded kill is restored (every
 * cell runs its first attempt); the intent-conflict cell seals it through its declared `server`,
 * and the network cells put a proxy in front of that server (`network`); a server-kill cell's
 * target gets a server of its own (`serverKills`).
 */
export const mariadbHarness: PluginHarness = {
  routes: [{ id: 'sqlite-to-mariadb', source: 'sqlite' }],
  // Every prepared target names its server, and the connector reaches it only there: the harness
  // may proxy it (network.yaml, lost-ack.yaml on --provider local).
  // With { dedicated: true } a cell gets a mariadbd of its own, which the harness may kill and
  // start again (server-kill.yaml).
  target: { prepare: prepared, network: true, serverKills: true },
  fenceLossModes: ['drop', 'rename'],
};
