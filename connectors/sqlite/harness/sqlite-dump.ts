import { existsSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';

/** JSON for a row read with bigints: a safe integer as the number it always was, a bigger one as its digits. */
function exactIntegers(_key: string, value: unknown): unknown {
  if (typeof value !== 'bigint') return value;
  return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
}

/** Every table of one SQLite database file, rows sorted (the caller masks holder names and instants). */
export function dumpDatabase(file: string): string {
  const db = new DatabaseSync(file);
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as {
      name: string;
    }[];
    return tables
      .map(({ name }) => {
        const select = db.prepare(`SELECT * FROM "${name.replaceAll('"', '""')}"`);
        // Integers beyond 2^53 (the dataset's `big`) read exactly: a number would throw or round.
        select.setReadBigInts(true);
        return `${name}\n${select
          .all()
          .map((row) => JSON.stringify(row, exactIntegers))
          .sort()
          .join('\n')}`;
      })
      .join('\n');
  } finally {
    db.close();
  }
}

/** The logical content of one SQLite database file, or `absent` (masked by the caller). */
export function sqliteDump(file: string): string {
  return existsSync(file) ? dumpDatabase(file) : 'absent';
}
