import { DatabaseSync } from 'node:sqlite';
import { ERROR_CODES } from '../../src/contracts/errors.ts';
import type {
  FenceRaiser,
  FenceReader,
} from '../../src/adapters/connectors/marker-fence/marker-fence-reader.ts';
import {
  markerFenceRaiser,
  markerFenceReader,
} from '../../src/adapters/connectors/marker-fence/marker-fence-reader.ts';
import type { SqliteDatabase } from './sqlite-connection.ts';
import { openSqlite, openedOr } from './sqlite-connection.ts';
import { sqliteDialect } from './sqlite-dialect.ts';

/**
 * A read-only reader of a SQLite target's fence: the file is opened with `readOnly`, so querying
 * the fence cannot create a table or change a byte of it. The caller checks that the file exists.
 */
export function openSqliteFenceReader(path: string): FenceReader {
  const db = openedOr(
    () => new DatabaseSync(path, { readOnly: true }),
    ERROR_CODES.FENCE_UNAVAILABLE,
    'the SQLite target could not be opened read-only',
  );
  // No target table: a read-only dialect is never asked to mutate.
  return markerFenceReader(sqliteDialect(db as unknown as SqliteDatabase, ''));
}

/**
 * The fence of a SQLite target for recovery apply: reads it and raises its epoch (fence first),
 * never creates a table. The caller checks that the file exists.
 */
export function openSqliteFenceRaiser(path: string): FenceRaiser {
  const db = openedOr(
    () => openSqlite(path),
    ERROR_CODES.FENCE_UNAVAILABLE,
    'the SQLite target could not be opened',
  );
  return markerFenceRaiser(sqliteDialect(db, ''));
}
