import { DatabaseSync } from 'node:sqlite';

/**
 * How a reader opens the file: read-only unless `readOnly: false` (then opened as a writer would,
 * the file created when absent, as a reader that ran where the writers run).
 */
export interface FileAccess {
  readonly readOnly?: boolean;
}

/**
 * The embedded engine's test support, as src/cli/embedded-files.test-support.ts loads it from the
 * folder the engine table names: rows a test reads from one of its database files (a workload's
 * target, its journal), opened read-only (unless asked otherwise) so the file, and its WAL, stay as the run left them.
 */
export function readFileRows(
  path: string,
  sql: string,
  { readOnly = true }: FileAccess = {},
): Record<string, unknown>[] {
  const db = new DatabaseSync(path, { readOnly });
  try {
    return db.prepare(sql).all() as Record<string, unknown>[];
  } finally {
    db.close();
  }
}

/**
 * Holds the database file at `path` (created when absent) under an exclusive write lock until
 * released: another process opening it to write waits, then gives up (a journal "locked by another
 * process").
 */
export function lockFile(path: string): { release(): void } {
  const db = new DatabaseSync(path);
  db.exec('CREATE TABLE held (x)');
  db.exec('BEGIN EXCLUSIVE');
  return {
    release() {
      db.exec('ROLLBACK');
      db.close();
    },
  };
}

/** The names of every table in the database file at `path`, sorted. */
export function tableNames(path: string, access: FileAccess = {}): string[] {
  return readFileRows(path, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name", access).map(
    (row) => String(row.name),
  );
}

/** Runs `sql` against the database file at `path`: a change made by hand, as an operator would. */
export function changeFile(path: string, sql: string): void {
  const db = new DatabaseSync(path);
  try {
    db.exec(sql);
  } finally {
    db.close();
  }
}
