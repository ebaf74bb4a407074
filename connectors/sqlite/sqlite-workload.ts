import { realpathSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { invalidInput } from '../../src/contracts/errors.ts';
import type { Workload } from '../../src/contracts/workload.ts';
import type { WorkloadRules } from '../../src/ports/connector-plugin.ts';
import { sqliteFilePath } from './sqlite-file.ts';

/**
 * What SQLite refuses in a workload when it is read. SQLite opens one database file per
 * connection: its `main` schema is the file; `temp` is not (rows written there vanish when the
 * connection closes), another schema would be an attached database the connector never opens, and
 * `sqlite_…` names are SQLite's own. Two endpoints are the same table when their files are the same
 * file (symlinks resolved) and their tables the same name in `main` (SQLite compares names
 * case-insensitively).
 */
export const SQLITE_WORKLOAD_RULES: WorkloadRules = {
  checkEndpoint: (workload, side) => checkSqliteTable(workload[side].table, `${side}.table`),
  location: (workload, side) => sqliteLocation(workload, side),
  absoluteUrl: (url, baseDir) => {
    const path = url.slice('sqlite:'.length);
    if (!url.startsWith('sqlite:') || url.startsWith('sqlite://') || isAbsolute(path)) return undefined;
    return `sqlite://${resolve(baseDir, path)}`;
  },
};

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
      { field },
    );
  }
  if (/^sqlite_/i.test(name!))
    throw invalidInput(`${field} "${table}" is reserved for SQLite's own tables`, { field });
}

function sqliteLocation(workload: Workload, side: 'source' | 'target'): string {
  const endpoint = workload[side];
  const path = sqliteFilePath(endpoint.url, workload.file, `${side}.url`);
  let real = path;
  try {
    real = realpathSync(path);
  } catch {
    // not there yet: compare the path as written
  }
  const table = endpoint.table.includes('.') ? endpoint.table : `main.${endpoint.table}`;
  return `sqlite:${real}#${table.toLowerCase()}`;
}
