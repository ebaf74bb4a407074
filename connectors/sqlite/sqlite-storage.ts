import { accessSync, constants, existsSync, realpathSync, statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { SafeErrorFields } from '../../src/contracts/errors.ts';
import { DponeError, ERROR_CODES } from '../../src/contracts/errors.ts';
import type { ErrorCode } from '../../src/contracts/errors.ts';

/**
 * Why a SQLite file could not be read or written, told from the driver's result code and the
 * operating system's errno: one table for the target (targetStorageError, here) and the journal
 * (journal/sqlite-storage-error.ts), which share the engine's folder.
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

/** SQLite's primary result codes that name no storage cause (a lock, a busy WAL, a misuse), by name. */
const SQLITE_CODE_NAMES: Readonly<Record<number, string>> = {
  1: 'SQLITE_ERROR',
  4: 'SQLITE_ABORT',
  5: 'SQLITE_BUSY',
  6: 'SQLITE_LOCKED',
  7: 'SQLITE_NOMEM',
  15: 'SQLITE_PROTOCOL',
  21: 'SQLITE_MISUSE',
};

/** The fixed name of a node:sqlite error's primary result code, or null (not a SQLite error, or another code). */
export function sqliteCodeName(error: unknown): string | null {
  return SQLITE_CODE_NAMES[primaryCode(error)] ?? null;
}

/** A node:sqlite error's primary result code (the low byte of its extended `errcode`); 0 for any other value. */
function primaryCode(error: unknown): number {
  return Number((error as { errcode?: unknown } | null)?.errcode) & 0xff;
}

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

/**
 * SQLITE_CANTOPEN and SQLITE_IOERR (a -shm file that could not grow) say only "could not": the
 * file system says why. The file (when it exists) and its folder are asked for write access, and
 * the folder's file system for free blocks: a read-only file system, a denied write or a full disk
 * is the cause.
 */
function fileSystemErrno(named: string): string | null {
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

/**
 * The storage cause of a SQLite failure on the file at `path` (the target or the journal), or null
 * when it names none: the driver's primary result code, and the errno the failure carries or, where
 * SQLite says only "could not" (CANTOPEN, IOERR), the one its file system gives.
 */
export function sqliteStorageCause(error: unknown, path: string): StorageCause | null {
  const primary = primaryCode(error);
  const thrown = (error as { code?: unknown })?.code;
  const errno =
    primary === SQLITE_PRIMARY.CANTOPEN || primary === SQLITE_PRIMARY.IOERR
      ? fileSystemErrno(path)
      : typeof thrown === 'string'
        ? thrown
        : null;
  return storageCause(primary, errno);
}

/**
 * A SQLite target's storage failure told by its cause, or null: a full disk is DPONE_STORAGE_FULL
 * (free space, then retry; the transaction rolled back whole), a read-only or forbidden file
 * DPONE_PERMISSION_DENIED. The message names the target file and the cause's fixed name (SQLITE_FULL,
 * ENOSPC, SQLITE_READONLY, EROFS, EACCES); the driver's message stays in `cause`. Damaged bytes or a
 * lock keep the caller's code.
 */
export function targetStorageError(error: unknown, path: string, fields: SafeErrorFields): DponeError | null {
  const cause = sqliteStorageCause(error, path);
  if (cause?.code === ERROR_CODES.STORAGE_FULL)
    return new DponeError(
      cause.code,
      `the SQLite target ${path} could not be written: its disk is full (${cause.tag})`,
      { ...fields, hint: 'free space on the target file system, then retry: nothing was half-written' },
      { cause: error },
    );
  if (cause?.code === ERROR_CODES.PERMISSION_DENIED)
    return new DponeError(
      cause.code,
      `the SQLite target ${path} could not be written: it is read-only or this user may not write it (or its folder) (${cause.tag})`,
      {
        ...fields,
        hint: 'give the runtime write access to the target file, its -wal and -shm files and its folder, or remount it read-write; a retry cannot help before that',
      },
      { cause: error },
    );
  return null;
}
