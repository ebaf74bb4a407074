import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Fills a folder's file system to the last block: the harness's own ballast (its full-disk cells use it). */
export { fillFileSystem } from '../../../harness/env/tmpfs-mount.ts';

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
