import { execFileSync } from 'node:child_process';
import { rmSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ERROR_CODES, EXIT_CODES } from '../../../src/contracts/errors.ts';
import { create, dponeRejection, opId } from '../../../testing/journal-conformance-kit.ts';
import { SqliteJournal } from './sqlite-journal.ts';
import { fillFileSystem, mountTmpfs } from './tmpfs.test-support.ts';

/**
 * Storage that fails under the SQLite journal, for real: a size-limited tmpfs filled to the last
 * byte, the same remounted read-only, and a journal page overwritten. Each is told apart by its
 * cause, never "locked" and never an intent conflict. Mounting needs root with CAP_SYS_ADMIN (CI
 * runs as root); where it is refused those cells are skipped with the reason.
 */
const tmpfs = mountTmpfs('dpone-journal-storage-', '512k');
const { base, mountPoint, refused: mountRefused } = tmpfs;
afterAll(() => tmpfs.release());

describe.skipIf(mountRefused !== null)('the SQLite journal on a full or read-only file system', () => {
  it('a full disk is STORAGE_FULL (exit 18) naming the file and SQLITE_FULL, and the journal is left as it was', async () => {
    const folder = join(mountPoint, 'full');
    mkdirSync(folder);
    const path = join(folder, 'journal.db');
    await using journal = await SqliteJournal.open(path);
    await create(journal, opId('full-1'));
    const before = await journal.list();
    fillFileSystem(folder);
    const error = await dponeRejection(
      (async () => {
        for (let i = 0; i < 200; i++) await create(journal, opId(`full-${i + 2}`));
      })(),
    );
    expect(error.code).toBe(ERROR_CODES.STORAGE_FULL);
    expect(EXIT_CODES[error.code]).toBe(18);
    expect(error.message).toContain(`${path} could not be read or written: its disk is full (SQLITE_FULL)`);
    expect(error.toJSON().hint).toMatch(/^free space/);
    // Whatever did not fit was rolled back whole; what was there is still there.
    expect(await journal.list()).toEqual(expect.arrayContaining([...before]));
    // Space freed: the next write goes through.
    rmSync(join(folder, 'ballast'));
    await create(journal, opId('full-after'));
  });

  it('a read-only remount is PERMISSION_DENIED (exit 31) naming the cause, never "locked"', async () => {
    const folder = join(mountPoint, 'ro');
    mkdirSync(folder);
    const path = join(folder, 'journal.db');
    const journal = await SqliteJournal.open(path);
    await journal.close();
    execFileSync('mount', ['-o', 'remount,ro', mountPoint]);
    try {
      const error = await dponeRejection(SqliteJournal.open(path));
      expect(error.code).toBe(ERROR_CODES.PERMISSION_DENIED);
      expect(EXIT_CODES[error.code]).toBe(31);
      expect(error.message).toMatch(
        /is read-only or this user may not write it .*\((SQLITE_READONLY|SQLITE_PERM|EROFS)\)/,
      );
    } finally {
      execFileSync('mount', ['-o', 'remount,rw', mountPoint]);
    }
  });
});

describe('a damaged SQLite journal', () => {
  it('a page overwritten with garbage is JOURNAL_CORRUPT (exit 19), never an intent conflict', async () => {
    const path = join(base, 'corrupt.db');
    {
      await using journal = await SqliteJournal.open(path);
      for (let i = 0; i < 30; i++) await create(journal, opId(`c-${i}`));
    }
    // Every page after the first (the header and the schema stay readable): garbage.
    const bytes = readFileSync(path);
    for (let offset = 4096; offset < bytes.length; offset++) bytes[offset] = 0xa5;
    writeFileSync(path, bytes);
    const error = await dponeRejection(
      (async () => {
        await using journal = await SqliteJournal.open(path);
        await journal.list();
      })(),
    );
    expect(error.code).toBe(ERROR_CODES.JOURNAL_CORRUPT);
    expect(EXIT_CODES[error.code]).toBe(19);
    // quick_check at open finds it before any row is read (SQLITE_CORRUPT if a read got there first).
    expect(error.message).toMatch(
      /could not be read or written: its bytes are damaged \((quick_check|SQLITE_CORRUPT)\)/,
    );
    expect(error.message).toContain(path);
  });
});
