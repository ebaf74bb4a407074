import type { StatementSync } from 'node:sqlite';
import { DatabaseSync } from 'node:sqlite';
import { DponeError, ERROR_CODES } from '../../../../src/contracts/errors.ts';
import type { CellScalar } from '../../../../harness/checkers/target-snapshot.ts';
import type { SourceRows } from '../../../../harness/inspectors/source-rows.ts';

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** A SQLite source file, read-only; integers as bigint so values beyond 2^53 stay exact. */
export function sqliteSourceRows(options: {
  readonly path: string;
  readonly table: string;
  readonly columns: readonly string[];
  readonly partition?: { readonly column: string; readonly value: string };
}): SourceRows {
  const { path, table, columns, partition } = options;
  const query = <T>(body: (statement: StatementSync, parameters: string[]) => T): T => {
    let db: DatabaseSync | undefined;
    try {
      db = new DatabaseSync(path, { readOnly: true });
      const list = columns.map(quote).join(', ');
      const where = partition ? ` WHERE CAST(${quote(partition.column)} AS TEXT) = ?` : '';
      const statement = db.prepare(`SELECT ${list} FROM ${quote(table)}${where}`);
      statement.setReadBigInts(true);
      return body(statement, partition ? [partition.value] : []);
    } catch (error) {
      throw new DponeError(
        ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
        'the harness could not read the SQLite source',
        {},
        { cause: error },
      );
    } finally {
      db?.close();
    }
  };
  return {
    identity: `sqlite:${table}`,
    read: async () =>
      query((statement, parameters) => statement.all(...parameters) as Record<string, CellScalar>[]),
    each: async (visit) =>
      query((statement, parameters) => {
        let count = 0;
        for (const row of statement.iterate(...parameters)) {
          visit(row as Record<string, CellScalar>);
          count += 1;
        }
        return count;
      }),
  };
}
