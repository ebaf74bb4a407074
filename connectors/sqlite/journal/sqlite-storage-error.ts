import { DponeError, ERROR_CODES } from '../../../src/contracts/errors.ts';
import type { ErrorCode } from '../../../src/contracts/errors.ts';
import { sqliteStorageCause } from '../sqlite-storage.ts';

/**
 * The SQLite journal's storage failures in words, by cause; the cause comes from the one table the
 * journal and the engine's target share (../sqlite-storage.ts).
 */
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
  const cause = sqliteStorageCause(error, path);
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
