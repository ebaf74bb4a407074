import { existsSync } from 'node:fs';
import { readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Above this many rows in a partition, cell folders go to the OS temp dir (disk), not tmpfs: a
 * 1,000,000-row cell keeps copies of its database files for each recorded kill point, and a shard
 * of such cells held 5.6 GB of tmpfs, which is memory (two shards and their harnesses were
 * SIGKILLed by the kernel's out-of-memory killer on this 23 GB machine).
 */
export const TMPFS_ROWS_LIMIT = 100_000;

const OWNER_FILE = '.dpone-owner';

/**
 * Where a run's scratch folder goes. Cell folders are scratch: on tmpfs when there is one and the
 * partitions are small. SIGKILL (a process death) loses nothing the page cache holds, so fsync
 * latency buys no fidelity here; power loss is out of this harness's scope.
 */
export function scratchRoot(largestPartitionRows: number, tmpfs = '/dev/shm'): string {
  return largestPartitionRows <= TMPFS_ROWS_LIMIT && existsSync(tmpfs) ? tmpfs : tmpdir();
}

/** Marks `work` as this process's, so a later run can tell it was abandoned if this one is killed. */
export async function claimScratch(work: string, pid = process.pid): Promise<void> {
  await writeFile(join(work, OWNER_FILE), `${pid}\n`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the `dpone-*` scratch folders in `root` whose owning run is no longer alive: a run that
 * was SIGKILLed (or lost its machine's power) never reached its own cleanup, and on tmpfs its
 * cells would hold memory until the machine restarts. Folders without an owner file are left alone.
 * Returns the folders removed.
 */
export async function removeAbandonedScratch(root: string): Promise<string[]> {
  const removed: string[] = [];
  const entries = await readdir(root, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    if (!entry.isDirectory() || !entry.name.startsWith('dpone-')) continue;
    const folder = join(root, entry.name);
    const owner = Number.parseInt(await readFile(join(folder, OWNER_FILE), 'utf8').catch(() => ''), 10);
    if (!Number.isInteger(owner) || owner <= 0 || alive(owner)) continue;
    await rm(folder, { recursive: true, force: true });
    removed.push(folder);
  }
  return removed;
}
