import { DatabaseSync } from 'node:sqlite';
import { DponeError, ERROR_CODES } from '../../src/contracts/errors.ts';
import type { CellScalar } from '../checkers/target-snapshot.ts';

/**
 * The source partition as an inspector reads it for row parity: with its own connection, never
 * through the connector under test. A route composes the reader of its source engine with the
 * inspector of its target engine.
 */
export interface SourceRows {
  /** Safe identity, e.g. `sqlite:events_src`. */
  readonly identity: string;
  read(): Promise<readonly Record<string, CellScalar>[]>;
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** A SQLite source file, read-only; integers as bigint so values beyond 2^53 stay exact. */
export function sqliteSourceRows(options: {
  readonly path: string;
  readonly table: string;
  readonly columns: readonly string[];
  readonly partition?: { readonly column: string; readonly value: string };
}): SourceRows {
  return {
    identity: `sqlite:${options.table}`,
    async read() {
      const { path, table, columns, partition } = options;
      let db: DatabaseSync | undefined;
      try {
        db = new DatabaseSync(path, { readOnly: true });
        const list = columns.map(quote).join(', ');
        const where = partition ? ` WHERE CAST(${quote(partition.column)} AS TEXT) = ?` : '';
        const statement = db.prepare(`SELECT ${list} FROM ${quote(table)}${where}`);
        statement.setReadBigInts(true);
        return (partition ? statement.all(partition.value) : statement.all()) as Record<string, CellScalar>[];
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
    },
  };
}
