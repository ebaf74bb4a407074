import { accessSync, constants, existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { DponeError, ERROR_CODES } from '../../../contracts/errors.ts';
import type { ErrorCode } from '../../../contracts/errors.ts';

/** SQLite primary result codes (the low byte of an extended one) that name a storage cause. */
const SQLITE_PERM = 3;
const SQLITE_READONLY = 8;
const SQLITE_CORRUPT = 11;
const SQLITE_FULL = 13;
const SQLITE_CANTOPEN = 14;
const SQLITE_NOTADB = 26;

interface Cause {
  readonly code: ErrorCode;
  /** The cause as a fixed word (never the driver's message). */
  readonly tag: string;
  readonly what: string;
  readonly hint: string;
}

/**
 * SQLITE_CANTOPEN says only "could not open": the file system says why. The file (when it exists)
 * and its folder are asked for write access; a read-only file system or a denied write is the cause.
 */
function accessErrno(path: string): string | null {
  for (const target of [path, dirname(path)]) {
    if (!existsSync(target)) continue;
    try {
      accessSync(target, constants.W_OK);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EROFS' || code === 'EACCES' || code === 'EPERM') return code;
    }
  }
  return null;
}

function causeOf(error: unknown, path: string): Cause | null {
  const sqlite = Number((error as { errcode?: unknown })?.errcode) & 0xff;
  const thrown = (error as { code?: unknown })?.code;
  const errno = sqlite === SQLITE_CANTOPEN ? (accessErrno(path) ?? thrown) : thrown;
  if (sqlite === SQLITE_FULL || errno === 'ENOSPC')
    return {
      code: ERROR_CODES.STORAGE_FULL,
      tag: sqlite === SQLITE_FULL ? 'SQLITE_FULL' : 'ENOSPC',
      what: 'its disk is full',
      hint: 'free space on the journal file system, then retry: nothing was half-written',
    };
  if (
    sqlite === SQLITE_READONLY ||
    sqlite === SQLITE_PERM ||
    errno === 'EACCES' ||
    errno === 'EROFS' ||
    errno === 'EPERM'
  )
    return {
      code: ERROR_CODES.PERMISSION_DENIED,
      tag:
        sqlite === SQLITE_READONLY
          ? 'SQLITE_READONLY'
          : sqlite === SQLITE_PERM
            ? 'SQLITE_PERM'
            : String(errno),
      what: 'it is read-only or this user may not write it (or its folder)',
      hint: 'give the runtime write access to the journal file, its -wal and -shm files and its folder, or remount it read-write; a retry cannot help before that',
    };
  if (sqlite === SQLITE_CORRUPT || sqlite === SQLITE_NOTADB)
    return {
      code: ERROR_CODES.JOURNAL_CORRUPT,
      tag: sqlite === SQLITE_CORRUPT ? 'SQLITE_CORRUPT' : 'SQLITE_NOTADB',
      what: 'its bytes are damaged',
      hint: 'restore the journal from a backup (or recover it with `dpone recovery target-commit`); do not retry: the target fence still says what committed',
    };
  return null;
}

/**
 * A failure of the SQLite journal's storage, classified by its cause: a full disk
 * (DPONE_STORAGE_FULL: free space, then retry), a read-only or forbidden file (DPONE_PERMISSION_DENIED),
 * damaged bytes (DPONE_TARGET_COMMIT_JOURNAL_CORRUPT: restore, do not retry); anything else the
 * protocol's JOURNAL_UNAVAILABLE. The message names the file and the cause's fixed name; the
 * driver's own message stays in `cause`.
 */
export function journalStorageError(error: unknown, path: string, operationId?: string): DponeError | null {
  const cause = causeOf(error, path);
  if (cause === null) return null;
  return new DponeError(
    cause.code,
    `the SQLite commit journal ${path} could not be read or written: ${cause.what} (${cause.tag})`,
    { ...(operationId !== undefined ? { operationId } : {}), hint: cause.hint },
    { cause: error },
  );
}
