import { realpathSync } from 'node:fs';
import { invalidInput } from '../contracts/errors.ts';
import type { EndpointSpec, Workload } from '../contracts/workload.ts';
import { sqliteFilePath } from '../../connectors/sqlite/sqlite-file.ts';

/**
 * Checks across fields of a workload that each field's own check cannot see: table names the
 * route's database would resolve somewhere the operator did not mean (SQLite's TEMP schema, where
 * rows vanish when the connection closes; dpone's own tables), and a target that is the source.
 * Each refusal is DPONE_INVALID_INPUT naming the field; the file reader adds `file:line:column`.
 * PostgreSQL schema names (pg_temp, pg_catalog, …) are checked with the PostgreSQL connector's
 * configuration, not here.
 */
export function checkWorkload(workload: Workload): Workload {
  for (const side of ['source', 'target'] as const) {
    const endpoint = workload[side];
    if (/(^|\.)_dpone_/i.test(endpoint.table))
      throw invalidInput(`${side}.table names a table of dpone's own (_dpone_…)`, { field: `${side}.table` });
    if (isSqlite(workload, endpoint)) checkSqliteTable(endpoint.table, `${side}.table`);
  }
  if (sameEndpoint(workload)) {
    throw invalidInput(
      'target.table is the source table itself (same database and table): the load would append into its own source',
      { field: 'target.table' },
    );
  }
  return workload;
}

function isSqlite(workload: Workload, endpoint: EndpointSpec): boolean {
  return /^sqlite:/i.test(endpoint.url);
}

/** SQLite opens one database file per connection: its `main` schema is the file, `temp` is not. */
function checkSqliteTable(table: string, field: string): void {
  const [schema, name] = table.includes('.') ? table.split('.', 2) : [null, table];
  if (schema !== null && schema.toLowerCase() === 'temp') {
    throw invalidInput(
      `${field} "${table}" is in SQLite's TEMP schema: rows written there vanish when the connection closes`,
      { field },
    );
  }
  if (schema !== null && schema.toLowerCase() !== 'main') {
    throw invalidInput(
      `${field} "${table}": SQLite opens only the main database of the file (write main.${name} or ${name})`,
      {
        field,
      },
    );
  }
  if (/^sqlite_/i.test(name!))
    throw invalidInput(`${field} "${table}" is reserved for SQLite's own tables`, { field });
}

const DEFAULT_SCHEMA: Readonly<Record<string, string>> = { postgres: 'public', mssql: 'dbo', sqlite: 'main' };
const DEFAULT_PORT: Readonly<Record<string, string>> = {
  postgres: '5432',
  mssql: '1433',
  clickhouse: '8123',
};
const SCHEME_FAMILY: Readonly<Record<string, string>> = {
  postgresql: 'postgres',
  postgres: 'postgres',
  sqlserver: 'mssql',
  mssql: 'mssql',
  clickhouse: 'clickhouse',
  http: 'clickhouse',
  https: 'clickhouse',
};

/** Where an endpoint's rows live: a canonical database location plus the qualified table. */
function location(workload: Workload, side: 'source' | 'target'): string | null {
  const endpoint = workload[side];
  if (/^sqlite:/i.test(endpoint.url)) {
    const path = sqliteFilePath(endpoint.url, workload.file, `${side}.url`);
    let real = path;
    try {
      real = realpathSync(path);
    } catch {
      // not there yet: compare the path as written
    }
    return `sqlite:${real}#${qualified('sqlite', endpoint.table).toLowerCase()}`;
  }
  let url: URL;
  try {
    url = new URL(endpoint.url);
  } catch {
    return null;
  }
  const family = SCHEME_FAMILY[url.protocol.slice(0, -1).toLowerCase()];
  if (!family) return null;
  const port = url.port || DEFAULT_PORT[family] || '';
  const table = qualified(family, endpoint.table);
  // SQL Server compares names case-insensitively by default; PostgreSQL names are quoted (exact).
  const shown = family === 'mssql' ? table.toLowerCase() : table;
  return `${family}://${url.hostname.toLowerCase()}:${port}${url.pathname}#${shown}`;
}

function qualified(family: string, table: string): string {
  const schema = DEFAULT_SCHEMA[family];
  return table.includes('.') || !schema ? table : `${schema}.${table}`;
}

function sameEndpoint(workload: Workload): boolean {
  const source = location(workload, 'source');
  return source !== null && source === location(workload, 'target');
}
