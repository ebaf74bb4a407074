import { accessSync, constants, existsSync, realpathSync, statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import { DponeError, ERROR_CODES } from '../../../src/contracts/errors.ts';
import type { ErrorCode } from '../../../src/contracts/errors.ts';

/**
 * Why a SQLite file could not be read or written, told from the driver's result code and the
 * operating system's errno. The target (adapters/connectors/sqlite/sqlite-storage.ts) keeps the
 * same table: adapters of two kinds share no file, and contracts name no engine.
 */

/** SQLite primary result codes (the low byte of an extended one) that name a storage cause. */
const SQLITE_PRIMARY = {
  PERM: 3,
  READONLY: 8,
  IOERR: 10,
  CORRUPT: 11,
  FULL: 13,
  CANTOPEN: 14,
  NOTADB: 26,
} as const;

interface StorageCause {
  readonly code: ErrorCode;
  /** The cause as a fixed word (never the driver's message): SQLITE_FULL, ENOSPC, EACCES, … */
  readonly tag: string;
}

const DENIED = new Set(['EACCES', 'EROFS', 'EPERM']);

/**
 * The cause from SQLite's primary result code and the errno the file system gave (null when it
 * gave none), or null when neither names a storage cause (a lock, a closed handle: not ours to name).
 */
function storageCause(sqlitePrimary: number, errno: string | null): StorageCause | null {
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

const WHAT: Partial<Record<ErrorCode, { what: string; hint: string }>> = {
  [ERROR_CODES.STORAGE_FULL]: {
    what: 'its disk is full',
    hint: 'free space on the journal file system, then retry: nothing was half-written',
  },
  [ERROR_CODES.PERMISSION_DENIED]: {
    what: 'it is read-only or this user may not write it (or its folder)',
    hint: 'give the runtime write access to the journal file, its -wal and -shm files and its folder, or remount it read-write; a retry cannot help before that',
  },
  [ERROR_CODES.JOURNAL_CORRUPT]: {
    what: 'its bytes are damaged',
    hint: 'restore the journal from a backup (or recover it with `dpone recovery target-commit`); do not retry: the target fence still says what committed',
  },
};

/**
 * SQLITE_CANTOPEN and SQLITE_IOERR say only "could not": the file system says why. The file (when
 * it exists) and its folder are asked for write access, and the folder's file system for free
 * blocks: a read-only file system, a denied write or a full disk is the cause.
 */
export function fileSystemErrno(named: string): string | null {
  // SQLite follows a symbolic link and keeps its -wal and -shm beside the file the link names:
  // ask that file's folder and file system, not the link's.
  const path = existsSync(named) ? realpathSync(named) : named;
  for (const target of [path, dirname(path)]) {
    if (!existsSync(target)) continue;
    try {
      accessSync(target, constants.W_OK);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EROFS' || code === 'EACCES' || code === 'EPERM') return code;
    }
  }
  try {
    if (existsSync(dirname(path)) && statfsSync(dirname(path)).bavail === 0) return 'ENOSPC';
  } catch {
    // no answer from the file system: no cause to name
  }
  return null;
}

function errnoOf(error: unknown, path: string): string | null {
  const primary = Number((error as { errcode?: unknown })?.errcode) & 0xff;
  if (primary === SQLITE_PRIMARY.CANTOPEN || primary === SQLITE_PRIMARY.IOERR) return fileSystemErrno(path);
  const thrown = (error as { code?: unknown })?.code;
  return typeof thrown === 'string' ? thrown : null;
}

/**
 * A failure of the SQLite journal's storage, classified by its cause: a full disk
 * (DPONE_STORAGE_FULL: free space, then retry), a read-only or forbidden file (DPONE_PERMISSION_DENIED),
 * damaged bytes (DPONE_TARGET_COMMIT_JOURNAL_CORRUPT: restore, do not retry); anything else the
 * protocol's JOURNAL_UNAVAILABLE. The message names the file, which flag or default chose it and
 * the cause's fixed name; the driver's own message stays in `cause`.
 */
export function journalStorageError(
  error: unknown,
  path: string,
  operationId?: string,
  chosenBy?: string,
): DponeError | null {
  const primary = Number((error as { errcode?: unknown })?.errcode) & 0xff;
  const cause = storageCause(primary, errnoOf(error, path));
  const words = cause === null ? undefined : WHAT[cause.code];
  if (cause === null || words === undefined) return null;
  const chosen = chosenBy === undefined ? '' : ` (chosen by ${chosenBy})`;
  return new DponeError(
    cause.code,
    `the SQLite commit journal ${path}${chosen} could not be read or written: ${words.what} (${cause.tag})`,
    { ...(operationId !== undefined ? { operationId } : {}), hint: words.hint },
    { cause: error },
  );
}

/** Damage this adapter found itself (a row checksum, quick_check): DPONE_TARGET_COMMIT_JOURNAL_CORRUPT. */
export function journalCorrupt(
  path: string,
  tag: string,
  operationId?: string,
  chosenBy?: string,
): DponeError {
  const words = WHAT[ERROR_CODES.JOURNAL_CORRUPT]!;
  const chosen = chosenBy === undefined ? '' : ` (chosen by ${chosenBy})`;
  return new DponeError(
    ERROR_CODES.JOURNAL_CORRUPT,
    `the SQLite commit journal ${path}${chosen} could not be read or written: ${words.what} (${tag})`,
    { ...(operationId !== undefined ? { operationId } : {}), hint: words.hint },
  );
}
