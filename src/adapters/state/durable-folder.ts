import { mkdir, open } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * Creates `path` and any missing folder above it so that the folders survive a power cut: a new
 * folder's name is an entry in its parent, and a filesystem may hold that entry in memory until the
 * parent itself is fsynced (ext4 without `dirsync`, XFS, the harness's power-loss filesystem). A
 * journal created in a state folder whose entry was never synced is lost with the folder, however
 * carefully the journal syncs its own file. So every folder this call created has its parent
 * fsynced, from the outermost down. Returns the folders created (outermost first; none when
 * `path` already existed).
 *
 * `unsynced` is the harness's `state-folder-unsynced` unsafe variant only: the folders are created
 * as `mkdir -p` does, nothing synced.
 */
export async function makeFolderDurably(
  path: string,
  options: { readonly unsynced?: boolean } = {},
): Promise<string[]> {
  const first = await mkdir(path, { recursive: true });
  if (first === undefined) return [];
  const created: string[] = [];
  for (let folder = path; ; folder = dirname(folder)) {
    created.unshift(folder);
    if (folder === first || dirname(folder) === folder) break;
  }
  if (options.unsynced) return created;
  for (const folder of created) await syncFolder(dirname(folder));
  return created;
}

/** fsync a folder: the entries created, renamed or removed in it are on disk when this returns. */
export async function syncFolder(folder: string): Promise<void> {
  const handle = await open(folder, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
