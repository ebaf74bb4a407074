import { DponeError, ERROR_CODES } from '../../src/contracts/errors.ts';
import type { FaultPoints } from '../../src/ports/fault-points.ts';
import type { MarkerTargetOptions } from '../../src/adapters/connectors/marker-fence/marker-target.ts';
import { MarkerTarget } from '../../src/adapters/connectors/marker-fence/marker-target.ts';
import { PlainTarget } from '../../src/adapters/connectors/marker-fence/plain-target.ts';
import type { SqliteDatabase } from './sqlite-connection.ts';
import { openSqlite } from './sqlite-connection.ts';
import { sqliteDialect } from './sqlite-dialect.ts';
import { SQLITE_FENCE_LOCATION, ensureFenceTable } from './sqlite-fence.ts';
import { ensureTargetTable } from './sqlite-rows.ts';
import { targetStorageError } from './sqlite-storage.ts';

export interface SqliteTargetOptions {
  /** Path of the target database file. */
  readonly path: string;
  readonly table: string;
  /** The workload's columns; the table is created with them when missing. */
  readonly columns: readonly string[];
  /** Kept for the checker and for documentation; the target table has no unique key on purpose. */
  readonly naturalKey: readonly string[];
  readonly faults?: FaultPoints;
  readonly nowMs?: () => number;
}

/** Opens the file and creates the fence and target tables; a driver failure is FENCE_UNAVAILABLE. */
export function openTargetDatabase(
  options: SqliteTargetOptions,
  withFence = true,
  unsafe: { synchronous?: 'OFF' | 'NORMAL' } = {},
): SqliteDatabase {
  try {
    const db = openSqlite(options.path, unsafe);
    if (withFence) ensureFenceTable(db);
    ensureTargetTable(db, options.table, options.columns);
    return db;
  } catch (error) {
    throw (
      targetStorageError(error, options.path, {}) ??
      new DponeError(
        ERROR_CODES.FENCE_UNAVAILABLE,
        'the SQLite target could not be opened',
        {},
        { cause: error },
      )
    );
  }
}

/**
 * The same table written WITHOUT a fence (`target.fence: none`, capability none): no fence table
 * is created or read, and no outcome can be proven.
 */
export function openPlainSqliteTarget(options: SqliteTargetOptions): PlainTarget {
  return new PlainTarget(sqliteDialect(openTargetDatabase(options, false), options.table, options.path), {
    identity: `sqlite:${options.table}`,
    ...(options.faults ? { faults: options.faults } : {}),
  });
}

/** The marker target's options for a SQLite target (identity, faults, clock). */
export function markerOptions(options: SqliteTargetOptions): MarkerTargetOptions {
  return {
    identity: `sqlite:${options.table}`,
    fenceLocation: SQLITE_FENCE_LOCATION,
    ...(options.faults ? { faults: options.faults } : {}),
    ...(options.nowMs ? { nowMs: options.nowMs } : {}),
  };
}

/**
 * The embedded route's target. Capability: a transactional commit marker — the fence row turns
 * committed in the same transaction as the data, guarded by the lease epoch, so a replay is refused
 * and a zombie holding an old epoch writes nothing.
 */
export class SqliteTarget extends MarkerTarget {
  static async open(options: SqliteTargetOptions): Promise<SqliteTarget> {
    return new SqliteTarget(
      sqliteDialect(openTargetDatabase(options), options.table, options.path),
      markerOptions(options),
    );
  }
}
