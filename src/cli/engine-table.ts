import type { BuiltInEngine } from '../ports/built-in-engine.ts';
import { CLICKHOUSE_ENGINE } from '../../connectors/clickhouse/engine.ts';
import { MSSQL_ENGINE } from '../../connectors/mssql/engine.ts';
import { POSTGRES_ENGINE } from '../../connectors/postgres/engine.ts';
import { SQLITE_ENGINE } from '../../connectors/sqlite/engine.ts';

/**
 * The built-in engines, each registered by its folder's engine.ts (`connectors/<engine>/`): one
 * line per engine, in the order the route errors list them (the embedded engine first). Read by the
 * engines table (built-in-engines.ts: how routes open) and by the workload reader (each engine's
 * workload rules), which is why it is a module of its own.
 */
export const FOLDER_ENGINES: Readonly<Record<string, BuiltInEngine>> = {
  sqlite: SQLITE_ENGINE,
  postgres: POSTGRES_ENGINE,
  mssql: MSSQL_ENGINE,
  clickhouse: CLICKHOUSE_ENGINE,
};

/** The folder engine `name`, or undefined for a plug-in's or an unknown one. */
export function folderEngine(name: string): BuiltInEngine | undefined {
  return Object.hasOwn(FOLDER_ENGINES, name) ? FOLDER_ENGINES[name] : undefined;
}
