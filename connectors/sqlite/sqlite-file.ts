import { accessSync, closeSync, constants, openSync, readSync, statSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import type { SafeErrorFields } from '../../src/contracts/errors.ts';
import { DponeError, ERROR_CODES, invalidInput } from '../../src/contracts/errors.ts';

const HEADER = 'SQLite format 3\u0000';

/** Parses `sqlite:///abs/path` or `sqlite:relative/path` (relative to the workload's folder). */
export function sqliteFilePath(url: string, workloadFile: string, field: string): string {
  if (!url.startsWith('sqlite:'))
    throw invalidInput(`${field} must be a sqlite: URL for route sqlite`, { field });
  let path = url.slice('sqlite:'.length);
  if (path.startsWith('//')) {
    if (!path.startsWith('///'))
      throw invalidInput(`${field} must be sqlite:///abs/path or sqlite:rel/path`, { field });
    path = path.slice(2);
  }
  path = path.split(/[?#]/, 1)[0] ?? '';
  if (path === '' || path.endsWith('/')) throw invalidInput(`${field} names no database file`, { field });
  return isAbsolute(path) ? path : resolve(dirname(workloadFile), path);
}

export type SqliteFileRole = 'source' | 'target' | 'journal';

/**
 * A target or journal this process may not write is refused BEFORE SQLite opens it: an open that
 * fails half-way leaves a `-shm` (or `-wal`) file behind, which kept every later run failing even
 * once the permission was fixed (issue 33). The file, its `-wal` and `-shm` files (where present)
 * and its folder (SQLite creates and removes those there) must be writable.
 */
function checkWritable(path: string, field: string, fields: SafeErrorFields): void {
  for (const file of [path, `${path}-wal`, `${path}-shm`, dirname(path)]) {
    try {
      accessSync(file, constants.W_OK);
    } catch (error) {
      const errno = (error as NodeJS.ErrnoException).code ?? 'error';
      if (errno === 'ENOENT') continue;
      throw new DponeError(
        ERROR_CODES.PERMISSION_DENIED,
        `${field} names a file this process may not write (${errno}): ${file === path ? path : `${file} (of ${path})`}`,
        {
          ...fields,
          hint:
            errno === 'EROFS'
              ? 'its file system is mounted read-only: remount it read-write (or name another file), then retry'
              : 'give this user write access to the file, its -wal and -shm files and its folder, then retry; nothing was opened or created',
        },
        { cause: error },
      );
    }
  }
}

/**
 * Checks what a `sqlite:` URL names before SQLite opens it, so a wrong path is a clear input error
 * (exit 2, or 32 for a missing source) instead of a driver failure that reads as "retry": Airflow
 * would retry `sqlite:///etc/passwd`, a folder or /dev/null forever. A source must be an existing
 * SQLite database; a target or journal may not exist yet (SQLite creates it), and a target's
 * folder must exist.
 * An existing file must be a regular file that is empty or starts with SQLite's header; a target or
 * journal must be writable (checkWritable).
 */
export function checkSqliteFile(
  path: string,
  role: SqliteFileRole,
  fields: SafeErrorFields,
  options: { readonly readOnly?: boolean } = {},
): void {
  const field = fields.field ?? role;
  // A source is only read; a journal opened for reading (recovery inspect) too.
  const writable = role !== 'source' && options.readOnly !== true;
  const stat = statSync(path, { throwIfNoEntry: false });
  if (stat === undefined) {
    if (role === 'source')
      throw new DponeError(ERROR_CODES.OBJECT_NOT_FOUND, `${field} names no file: ${path}`, fields);
    // A journal's folder may be a volume not mounted yet: the journal adapter says "unavailable".
    if (role === 'journal') {
      if (writable && statSync(dirname(path), { throwIfNoEntry: false })?.isDirectory())
        checkWritable(path, field, fields);
      return;
    }
    const folder = statSync(dirname(path), { throwIfNoEntry: false });
    if (folder === undefined)
      throw new DponeError(
        ERROR_CODES.OBJECT_NOT_FOUND,
        `${field} names a file in a folder that does not exist: ${dirname(path)}`,
        fields,
      );
    if (!folder.isDirectory()) throw invalidInput(`${field}: ${dirname(path)} is not a folder`, fields);
    if (writable) checkWritable(path, field, fields);
    return;
  }
  if (stat.isDirectory()) throw invalidInput(`${field} names a folder, not a database file: ${path}`, fields);
  if (!stat.isFile())
    throw invalidInput(`${field} names a device, FIFO or socket, not a database file: ${path}`, fields);
  if (stat.size === 0) {
    if (writable) checkWritable(path, field, fields);
    return;
  }
  let header: string;
  try {
    const fd = openSync(path, 'r');
    try {
      const buffer = Buffer.alloc(HEADER.length);
      header = buffer.toString('latin1', 0, readSync(fd, buffer, 0, buffer.length, 0));
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    throw new DponeError(
      ERROR_CODES.PERMISSION_DENIED,
      `${field} names a file this process cannot read (${(error as NodeJS.ErrnoException).code ?? 'error'}): ${path}`,
      fields,
      { cause: error },
    );
  }
  // A journal path whose file has a database's shape (whole pages) but not its header: a damaged
  // journal, never bad input. A file of another shape was never a database: the wrong file named.
  if (header !== HEADER && role === 'journal' && stat.size >= 512 && stat.size % 512 === 0)
    throw new DponeError(
      ERROR_CODES.JOURNAL_CORRUPT,
      `the journal file ${path} (chosen by ${field}) is not an SQLite database: its header is damaged, or another file took its place`,
      {
        ...fields,
        hint: 'restore the journal from a backup; do not retry: the target fence still says what committed',
      },
    );
  if (header !== HEADER)
    throw invalidInput(`${field} names a file that is not an SQLite database: ${path}`, fields);
  if (writable) checkWritable(path, field, fields);
}
