import { mkdir, readdir, rename, rm, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { PartSeal } from '../../../harness/routes/parts.ts';
import { digest, watchedPlaceholders } from '../../../harness/routes/watched-placeholders.ts';

/** The database file and the files SQLite keeps beside it (`-wal`, `-shm`, `-journal`). */
export function ofDatabase(file: string, name: string): boolean {
  return name === file || (name.startsWith(file) && /^-(wal|shm|journal)$/.test(name.slice(file.length)));
}

/**
 * Seals one SQLite database of a cell (a source, or a target with its fence) for one attempt: its
 * files move into a folder the workload does not name, and an empty file takes the database's
 * place, watched through inotify (watched-placeholders.ts): an attempt that so much as OPENS it is
 * seen, also when the open leads nowhere and its error is swallowed. Afterwards nothing may have
 * touched the placeholder, no file SQLite creates beside a database it opened (`-journal`, `-wal`,
 * `-shm`) may have appeared, and the moved files must hold the same bytes; then everything moves
 * back. The workload keeps its URL: it now names the placeholder.
 */
export async function sealSqliteFile(cellDir: string, file: string, url: string): Promise<PartSeal> {
  const away = join(cellDir, `sealed-away-${file}`);
  await mkdir(away);
  const moved = (await readdir(cellDir)).filter((name) => ofDatabase(file, name));
  const digests = new Map<string, string>();
  for (const name of moved) {
    digests.set(name, digest(join(cellDir, name)));
    await rename(join(cellDir, name), join(away, name));
  }
  const placeholder = join(cellDir, file);
  const watched = await watchedPlaceholders([placeholder]);
  return {
    url,
    sealed: `${moved.sort().join(', ')} moved away, an empty file watched for any access in place of ${file}`,
    async release() {
      const touched = [...(await watched.release())];
      const appeared = (await readdir(cellDir)).filter((name) => name !== file && ofDatabase(file, name));
      for (const name of appeared) touched.push(`${name} created`);
      for (const [name, before] of digests)
        if (digest(join(away, name)) !== before) touched.push(`${name} changed`);
      for (const name of [file, ...appeared]) await rm(join(cellDir, name), { recursive: true, force: true });
      for (const name of moved) await rename(join(away, name), join(cellDir, name));
      await rmdir(away);
      return touched;
    },
  };
}
