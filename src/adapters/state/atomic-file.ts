import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { makeFolderDurably, syncFolder } from './durable-folder.ts';

/**
 * Writes `text` to `path` so a reader (or a crash) sees the old file or the new one, never a part:
 * write a temporary file in the same folder, fsync it, rename it over `path`, fsync the folder so
 * the rename itself is durable. A folder it has to create is created durably too (its parent synced).
 */
export async function writeFileAtomically(path: string, text: string): Promise<void> {
  const folder = dirname(path);
  await makeFolderDurably(folder);
  const temporary = join(folder, `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    const handle = await open(temporary, 'wx', 0o644);
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  await syncFolder(folder);
}
