import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/**
 * "One engine, one folder": which files outside an engine's folders name that engine. A file is
 * inside when a folder on its path is named after the engine (`connectors/clickhouse/` with its
 * `harness/` parts: every built-in engine lives whole in one); outside, its path or its text naming the
 * engine counts, in the engine folders of the others too (connectors/ is scanned). DuckDB and
 * MariaDB, plug-ins, are named nowhere. Only the exceptions below (MAY_NAME_ENGINES), each with
 * why, may name an engine outside its folders: tests and fixtures are held to the rule as well.
 */
export const ENGINES = ['sqlite', 'postgres', 'clickhouse', 'mssql', 'duckdb', 'mariadb'] as const;
export const SCANNED = ['src', 'harness', 'testing', 'connectors'] as const;

export function namingFiles(root: string, engine: string): string[] {
  const pattern = new RegExp(engine, 'i');
  return SCANNED.flatMap((dir) => readdirSync(join(root, dir), { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .map((file) => ({ file, path: relative(root, file).split(sep).join('/') }))
    .filter(({ path }) => !path.split('/').slice(0, -1).includes(engine))
    .filter(({ file, path }) => pattern.test(path) || pattern.test(readFileSync(file, 'utf8')))
    .map(({ path }) => path)
    .sort();
}

/**
 * The files outside the engine folders that may name an engine, each with why (a folder when it
 * ends in `/`). Everything else, tests and fixtures included, reaches the engines through their
 * registration: the engine table's one line per engine (the harness loads each engine's harness
 * entry from the folder that line names).
 */
export const MAY_NAME_ENGINES: Readonly<Record<string, string>> = {
  'src/cli/engine-table.ts': 'the registration: one line per built-in engine, runtime and harness alike',
  'src/contracts/identity-vectors.json':
    'published identity test vectors: their inputs are example workloads, URLs and route ids included',
  'harness/env/airflow/':
    "Airflow's own metadata database (a SQLite file, or a throw-away PostgreSQL cluster for its API " +
    "server and scheduler), and the Python it runs: Airflow's, not a route's engine",
};

export function mayNameEngines(path: string): boolean {
  return Object.keys(MAY_NAME_ENGINES).some((allowed) =>
    allowed.endsWith('/') ? path.startsWith(allowed) : path === allowed,
  );
}
