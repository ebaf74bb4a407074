import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A size-limited tmpfs for the SQLite storage tests (journal and target): a real file system that
 * fills to the last byte and remounts read-only. Mounting needs root with CAP_SYS_ADMIN (CI runs
 * as root); where it is refused, `refused` says why and the tests skip with it.
 */
export interface Tmpfs {
  /** The temporary folder the mount point lies in (for files that must not be on the tmpfs). */
  readonly base: string;
  readonly mountPoint: string;
  /** Null when mounted; otherwise why not. */
  readonly refused: string | null;
  /** Unmounts (lazily) and removes the temporary folder. */
  release(): void;
}

export function mountTmpfs(prefix: string, size: string): Tmpfs {
  const base = mkdtempSync(join(tmpdir(), prefix));
  const mountPoint = join(base, 'mnt');
  mkdirSync(mountPoint);
  let refused: string | null = null;
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', mountPoint], { stdio: 'ignore' });
  } catch {
    refused = 'mount -t tmpfs was refused here (needs root with CAP_SYS_ADMIN)';
  }
  return {
    base,
    mountPoint,
    refused,
    release() {
      if (refused === null) execFileSync('umount', ['-l', mountPoint], { stdio: 'ignore' });
      rmSync(base, { recursive: true, force: true });
    },
  };
}

/** Writes a ballast file into `folder` until its file system is full to the last block; returns its path. */
export function fillFileSystem(folder: string): string {
  const path = join(folder, 'ballast');
  const fd = openSync(path, 'w');
  try {
    const chunk = Buffer.alloc(64 * 1024, 1);
    for (;;) writeSync(fd, chunk);
  } catch {
    // ENOSPC: full; the last blocks go in smaller writes
    const small = Buffer.alloc(512, 1);
    try {
      for (;;) writeSync(fd, small);
    } catch {
      // full to the last block
    }
  } finally {
    closeSync(fd);
  }
  return path;
}
