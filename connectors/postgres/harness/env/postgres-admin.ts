import type pg from 'pg';
import { serverSqlstate } from '../../postgres-sqlstate.ts';
import { closePools, poolable, withPostgresClient } from './postgres-pool.ts';
import type { PostgresEndpoint } from './postgres-services.ts';

/**
 * Runs `body` on one short connection as the environment's own user (never a worker's), closed
 * whatever `body` does; a dropped connection's late error event is ignored (the query rejects).
 */
export async function withAdminClient<T>(
  server: PostgresEndpoint,
  database: string,
  body: (client: pg.ClientBase) => Promise<T>,
): Promise<T> {
  const config = {
    host: server.host,
    port: server.port,
    user: server.user,
    password: server.password,
    database,
    connectionTimeoutMillis: 10_000,
  };
  // The server the cells share: a kept connection (postgres-pool.ts); a dedicated one: its own.
  return withPostgresClient(config, poolable(server), body);
}

/** Runs statements in order on one short admin connection; `values` bind the statements that use $1. */
export async function adminQuery(
  server: PostgresEndpoint,
  database: string,
  sql: readonly string[],
  values?: unknown[],
): Promise<pg.QueryResult[]> {
  return withAdminClient(server, database, async (client) => {
    const results: pg.QueryResult[] = [];
    for (const text of sql) results.push(await client.query(text, text.includes('$1') ? values : undefined));
    return results;
  });
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * What the PostgreSQL route needs of the server's role, checked before anything is created: a
 * login, and CREATEDB (the run creates one throw-away database for its cells and drops it at the
 * end). Returns why not, in one line naming the missing privilege, or null.
 */
export async function missingPrivilege(server: PostgresEndpoint): Promise<string | null> {
  let rows: pg.QueryResult['rows'];
  try {
    [{ rows }] = (await adminQuery(server, server.adminDatabase, [
      'SELECT current_user AS role, (rolcreatedb OR rolsuper) AS createdb FROM pg_roles WHERE rolname = current_user',
    ])) as [pg.QueryResult];
  } catch (error) {
    const sqlstate = serverSqlstate(error);
    if (sqlstate?.startsWith('28'))
      return `PostgreSQL refused the login (SQLSTATE ${sqlstate}): check the user in the URL and the password`;
    if (sqlstate === '3D000') return `the database ${server.adminDatabase} in the URL does not exist`;
    return `PostgreSQL at ${server.host}:${server.port} did not answer${sqlstate ? ` (SQLSTATE ${sqlstate})` : ''}`;
  }
  if (rows[0]?.createdb !== true)
    return `role ${String(rows[0]?.role)} lacks CREATEDB: the run creates one throw-away database for its cells and drops it at the end (ALTER ROLE ${String(rows[0]?.role)} CREATEDB)`;
  return null;
}

/** Creates the cells database (the caller chose a name no one else uses). */
export async function createCellsDatabase(server: PostgresEndpoint, name: string): Promise<void> {
  await adminQuery(server, server.adminDatabase, [`CREATE DATABASE ${quote(name)}`]);
}

/** Drops the cells database and everything in it, ending sessions still connected (PostgreSQL 13+). */
export async function dropCellsDatabase(server: PostgresEndpoint, name: string): Promise<void> {
  await closePools(server);
  await adminQuery(server, server.adminDatabase, [`DROP DATABASE IF EXISTS ${quote(name)} WITH (FORCE)`]);
}

/**
 * Session settings a data team's roles often carry, every one of which changes how values are
 * written as text. The route puts them on its role in the cells database (ALTER ROLE … IN
 * DATABASE: an ordinary role may do this for itself, and it goes with the database), so every
 * worker connection, source and target alike, starts with them: exact values must survive.
 */
export const ODD_SESSION_SETTINGS: Readonly<Record<string, string>> = {
  DateStyle: 'SQL, DMY',
  extra_float_digits: '0',
  TimeZone: 'Asia/Kathmandu',
  IntervalStyle: 'sql_standard',
  bytea_output: 'escape',
};

/** Gives the server's role the odd settings in one database. */
export async function setOddSessionSettings(server: PostgresEndpoint, database: string): Promise<void> {
  await adminQuery(
    server,
    server.adminDatabase,
    Object.entries(ODD_SESSION_SETTINGS).map(
      ([name, value]) =>
        `ALTER ROLE CURRENT_USER IN DATABASE ${quote(database)} SET ${name} = '${value.replaceAll("'", "''")}'`,
    ),
  );
  // A kept connection opened before this would go on without them.
  await closePools(server);
}
