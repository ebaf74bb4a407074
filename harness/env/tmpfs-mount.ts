import { execFile } from 'node:child_process';
import { closeSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A size-limited tmpfs for the storage fault kinds (full-disk): a real file system that fills to
 * the last block. Mounting needs root with CAP_SYS_ADMIN (CI runs as root); where it is refused,
 * `mountTmpfs` says why and the cells are UNVERIFIED with that reason. The runtime's storage tests
 * keep a test-only copy of their own; this is the harness's.
 */
export interface TmpfsMount extends AsyncDisposable {
  readonly mountPoint: string;
  /** Writes a ballast file until the file system is full to the last block; returns its path. */
  fill(): string;
  /**
   * Remounts it read-only (`ro`) or read-write again (`rw`); null when done, else why the kernel
   * refused (it refuses `ro` while any process holds a file on it open for writing: EBUSY).
   */
  remount(mode: 'ro' | 'rw'): Promise<string | null>;
}

export type TmpfsStart =
  | { readonly available: true; readonly mount: TmpfsMount }
  | { readonly available: false; readonly reason: string };

/** Mounts a tmpfs of `size` (mount's syntax, e.g. `4m`) at `mountPoint` (created if missing). */
export async function mountTmpfs(mountPoint: string, size: string): Promise<TmpfsStart> {
  if (process.getuid?.() !== 0)
    return { available: false, reason: 'mounting a size-limited tmpfs needs root (CAP_SYS_ADMIN)' };
  mkdirSync(mountPoint, { recursive: true });
  try {
    await run('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', mountPoint]);
  } catch {
    return {
      available: false,
      reason: 'mount -t tmpfs was refused here (needs root with CAP_SYS_ADMIN and tmpfs support)',
    };
  }
  let mounted = true;
  return {
    available: true,
    mount: {
      mountPoint,
      fill: () => fillFileSystem(mountPoint),
      async remount(mode) {
        try {
          await run('mount', ['-o', `remount,${mode}`, mountPoint]);
          return null;
        } catch (error) {
          const stderr = String((error as { stderr?: unknown }).stderr ?? '');
          const busy = /busy/i.test(stderr) ? ': a file on it is open for writing (EBUSY)' : '';
          return `mount -o remount,${mode} was refused${busy}`;
        }
      },
      async [Symbol.asyncDispose]() {
        if (!mounted) return;
        mounted = false;
        // Lazily: a worker the harness already killed may still be closing a file on it.
        await run('umount', ['-l', mountPoint]).catch(() => undefined);
        rmSync(mountPoint, { recursive: true, force: true });
      },
    },
  };
}

/** Writes `ballast` into `folder` until its file system is full to the last block. */
export function fillFileSystem(folder: string): string {
  const path = join(folder, 'ballast');
  const fd = openSync(path, 'w');
  try {
    writeUntilFull(fd, Buffer.alloc(64 * 1024, 1));
    // The last blocks go in smaller writes.
    writeUntilFull(fd, Buffer.alloc(512, 1));
  } finally {
    closeSync(fd);
  }
  return path;
}

function writeUntilFull(fd: number, chunk: Buffer): void {
  try {
    for (;;) writeSync(fd, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  }
}
