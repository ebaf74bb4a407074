import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, readdir, rename, rm, rmdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { StorageSeal } from '../faults/storage-seal.ts';

/** The durable files of a cell's source, target and fence (the fence lives in the target file). */
const SEALED = /^(source|target)\.db(-wal|-shm|-journal)?$/;
const PLACEHOLDERS = ['source.db', 'target.db'] as const;

function digest(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/**
 * Seals a SQLite cell's source and target (with its fence) for one attempt: their files move into
 * a folder the workload does not name, and an empty folder takes each database's place, which
 * neither SQLite nor dpone can open as a database. Afterwards the placeholders must still be empty
 * folders, no file SQLite creates beside a database it opened (`-journal`, `-wal`, `-shm`) may have
 * appeared, and the moved files must hold the same bytes; then everything moves back.
 */
export async function sealSqliteStorage(cellDir: string, workloadFile: string): Promise<StorageSeal> {
  const away = join(cellDir, 'sealed-away');
  await mkdir(away);
  const moved = (await readdir(cellDir)).filter((name) => SEALED.test(name));
  const digests = new Map<string, string>();
  for (const name of moved) {
    digests.set(name, digest(join(cellDir, name)));
    await rename(join(cellDir, name), join(away, name));
  }
  for (const name of PLACEHOLDERS) await mkdir(join(cellDir, name));
  return {
    workloadFile,
    sealed: `${moved.sort().join(', ')} moved away, an empty folder in place of source.db and target.db`,
    async release() {
      const touched: string[] = [];
      for (const name of PLACEHOLDERS) {
        const where = join(cellDir, name);
        const isFolder = await stat(where).then(
          (s) => s.isDirectory(),
          () => false,
        );
        if (!isFolder) touched.push(`${name} replaced`);
        else if ((await readdir(where)).length > 0) touched.push(`${name} (something written inside)`);
      }
      const appeared = (await readdir(cellDir)).filter(
        (name) => SEALED.test(name) && !(PLACEHOLDERS as readonly string[]).includes(name),
      );
      for (const name of appeared) touched.push(`${name} created`);
      for (const [name, before] of digests)
        if (digest(join(away, name)) !== before) touched.push(`${name} changed`);
      for (const name of [...PLACEHOLDERS, ...appeared])
        await rm(join(cellDir, name), { recursive: true, force: true });
      for (const name of moved) await rename(join(away, name), join(cellDir, name));
      await rmdir(away);
      return touched;
    },
  };
}
