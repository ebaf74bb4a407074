import { DatabaseSync } from 'node:sqlite';

/**
 * The embedded engine's test support, as src/cli/embedded-files.test-support.ts loads it from the
 * folder the engine table names: rows a test reads from one of its database files (a workload's
 * target, its journal), opened read-only so the file, and its WAL, stay as the run left them.
 */
export function readFileRows(path: string, sql: string): Record<string, unknown>[] {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    return db.prepare(sql).all() as Record<string, unknown>[];
  } finally {
    db.close();
  }
}
