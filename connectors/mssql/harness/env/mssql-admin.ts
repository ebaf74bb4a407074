import { loadMssqlDriver } from '../../mssql-session.ts';
import type { MssqlEndpoint } from './mssql-service.ts';

/**
 * Runs statements on one short connection as the environment's own login (never a worker's),
 * through the same driver slice the connectors use. `database` null: the login's default.
 */
export async function mssqlAdmin(
  server: MssqlEndpoint,
  database: string | null,
  sql: readonly string[],
): Promise<readonly (readonly Record<string, unknown>[])[]> {
  const driver = await loadMssqlDriver();
  const query = new URLSearchParams(server.query);
  const pool = new driver.ConnectionPool({
    server: server.host,
    port: server.port,
    database: database ?? 'master',
    user: server.user,
    password: server.password,
    connectionTimeout: 10_000,
    requestTimeout: 30_000,
    pool: { max: 1, min: 0 },
    options: {
      encrypt: query.get('encrypt') !== 'false',
      trustServerCertificate: query.get('trustServerCertificate') === 'true',
      appName: 'dpone-harness',
    },
  });
  await pool.connect();
  try {
    const results: (readonly Record<string, unknown>[])[] = [];
    for (const text of sql) results.push((await pool.request().query(text)).recordset ?? []);
    return results;
  } finally {
    await pool.close().catch(() => undefined);
  }
}
