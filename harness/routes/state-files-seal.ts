import { mkdir, readdir, rename, rm, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { PartSeal } from './parts.ts';
import { digest, watchedPlaceholders } from './watched-placeholders.ts';

/**
 * Seals a target kept in named files of the cell folder (a plug-in's `stateFiles`: its database,
 * the fence in it, any log beside it) for one attempt: the files that exist move into a folder the
 * workload does not name, and an empty file watched through inotify takes the place of EVERY
 * declared name (watched-placeholders.ts), so an attempt that so much as opens one is seen.
 * Afterwards no placeholder may have been touched and the moved files must hold the same bytes;
 * then everything moves back. The workload keeps its URL.
 */
export async function sealStateFiles(
  cellDir: string,
  files: readonly string[],
  url: string,
): Promise<PartSeal> {
  const away = join(cellDir, 'sealed-away-target');
  await mkdir(away);
  const present = new Set(await readdir(cellDir));
  const moved = files.filter((name) => present.has(name));
  const digests = new Map<string, string>();
  for (const name of moved) {
    digests.set(name, digest(join(cellDir, name)));
    await rename(join(cellDir, name), join(away, name));
  }
  const watched = await watchedPlaceholders(files.map((name) => join(cellDir, name)));
  return {
    url,
    sealed: `${moved.join(', ') || 'no file yet'} moved away, empty files watched for any access in place of ${files.join(', ')}`,
    async release() {
      const touched = [...(await watched.release())];
      for (const [name, before] of digests)
        if (digest(join(away, name)) !== before) touched.push(`${name} changed`);
      for (const name of files) await rm(join(cellDir, name), { recursive: true, force: true });
      for (const name of moved) await rename(join(away, name), join(cellDir, name));
      await rmdir(away);
      return touched;
    },
  };
}
