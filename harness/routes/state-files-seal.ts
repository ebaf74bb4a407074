import { mkdir, readdir, rename, rm, rmdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { PartSeal } from './parts.ts';
import { digest } from './sqlite/sqlite-seal.ts';

async function isEmptyFolder(path: string): Promise<boolean> {
  const folder = await stat(path).then(
    (s) => s.isDirectory(),
    () => false,
  );
  return folder && (await readdir(path)).length === 0;
}

/**
 * Seals a target kept in named files of the cell folder (a plug-in's `stateFiles`: its database,
 * the fence in it, any log beside it) for one attempt: the files that exist move into a folder the
 * workload does not name, and an empty folder takes the place of EVERY declared name, so no engine
 * can open or create any of them. Afterwards each placeholder must still be an empty folder and the
 * moved files must hold the same bytes; then everything moves back. The workload keeps its URL.
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
  for (const name of files) await mkdir(join(cellDir, name));
  return {
    url,
    sealed: `${moved.join(', ') || 'no file yet'} moved away, empty folders in place of ${files.join(', ')}`,
    async release() {
      const touched: string[] = [];
      for (const name of files)
        if (!(await isEmptyFolder(join(cellDir, name)))) touched.push(`${name} (replaced or written inside)`);
      for (const [name, before] of digests)
        if (digest(join(away, name)) !== before) touched.push(`${name} changed`);
      for (const name of files) await rm(join(cellDir, name), { recursive: true, force: true });
      for (const name of moved) await rename(join(away, name), join(cellDir, name));
      await rmdir(away);
      return touched;
    },
  };
}
