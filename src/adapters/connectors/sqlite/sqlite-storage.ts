import { accessSync, constants, existsSync, statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { SafeErrorFields } from '../../../contracts/errors.ts';
import { DponeError, ERROR_CODES } from '../../../contracts/errors.ts';
import { SQLITE_PRIMARY, storageCause } from '../../../contracts/storage-cause.ts';

/**
 * SQLITE_CANTOPEN and SQLITE_IOERR (a -shm file that could not grow) say only "could not": the
 * file system says why. The file and its folder are asked for write access, the folder's file
 * system for free blocks.
 */
function fileSystemErrno(path: string): string | null {
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
 * A SQLite target's storage failure told by its cause, or null: a full disk is DPONE_STORAGE_FULL
 * (free space, then retry; the transaction rolled back whole), a read-only or forbidden file
 * DPONE_PERMISSION_DENIED. The message names the target file and the cause's fixed name (SQLITE_FULL,
 * ENOSPC, SQLITE_READONLY, EROFS, EACCES); the driver's message stays in `cause`. Damaged bytes or a
 * lock keep the caller's code.
 */
export function targetStorageError(error: unknown, path: string, fields: SafeErrorFields): DponeError | null {
  const primary = Number((error as { errcode?: unknown })?.errcode) & 0xff;
  const errno =
    primary === SQLITE_PRIMARY.CANTOPEN || primary === SQLITE_PRIMARY.IOERR
      ? fileSystemErrno(path)
      : typeof (error as { code?: unknown })?.code === 'string'
        ? String((error as { code: string }).code)
        : null;
  const cause = storageCause(primary, errno);
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
