import type { ErrorCode } from './errors.ts';
import { ERROR_CODES } from './errors.ts';

/**
 * Why a file-backed store (an SQLite journal or target) could not be read or written, told from the
 * driver's result code and the operating system's errno: shared by every adapter that keeps its
 * data in a local file, so a full disk, a read-only file and damaged bytes get the same codes and
 * the same fixed cause names wherever they happen. Pure: the caller asks the file system.
 */

/** SQLite primary result codes (the low byte of an extended one) that name a storage cause. */
export const SQLITE_PRIMARY = {
  PERM: 3,
  READONLY: 8,
  IOERR: 10,
  CORRUPT: 11,
  FULL: 13,
  CANTOPEN: 14,
  NOTADB: 26,
} as const;

export interface StorageCause {
  readonly code: ErrorCode;
  /** The cause as a fixed word (never the driver's message): SQLITE_FULL, ENOSPC, EACCES, … */
  readonly tag: string;
}

const DENIED = new Set(['EACCES', 'EROFS', 'EPERM']);

/**
 * The cause from SQLite's primary result code and the errno the file system gave (null when it
 * gave none), or null when neither names a storage cause (a lock, a closed handle: not ours to name).
 */
export function storageCause(sqlitePrimary: number, errno: string | null): StorageCause | null {
  if (sqlitePrimary === SQLITE_PRIMARY.FULL) return { code: ERROR_CODES.STORAGE_FULL, tag: 'SQLITE_FULL' };
  if (errno === 'ENOSPC' || errno === 'EDQUOT') return { code: ERROR_CODES.STORAGE_FULL, tag: errno };
  if (sqlitePrimary === SQLITE_PRIMARY.READONLY)
    return { code: ERROR_CODES.PERMISSION_DENIED, tag: 'SQLITE_READONLY' };
  if (sqlitePrimary === SQLITE_PRIMARY.PERM)
    return { code: ERROR_CODES.PERMISSION_DENIED, tag: 'SQLITE_PERM' };
  if (errno !== null && DENIED.has(errno)) return { code: ERROR_CODES.PERMISSION_DENIED, tag: errno };
  if (sqlitePrimary === SQLITE_PRIMARY.CORRUPT)
    return { code: ERROR_CODES.JOURNAL_CORRUPT, tag: 'SQLITE_CORRUPT' };
  if (sqlitePrimary === SQLITE_PRIMARY.NOTADB)
    return { code: ERROR_CODES.JOURNAL_CORRUPT, tag: 'SQLITE_NOTADB' };
  return null;
}
