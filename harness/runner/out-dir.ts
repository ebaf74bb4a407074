import { randomBytes } from 'node:crypto';
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { invalidInput } from '../../src/contracts/errors.ts';

/**
 * Checks an output folder before any work, so a run never spends its cells and then loses its
 * evidence: it must be a folder (or creatable as one) that this process can write. Creates it.
 * Refusals are DPONE_INVALID_INPUT (exit 2) naming the flag.
 */
export async function prepareOutDir(
  dir: string,
  flag: string,
  { create = true }: { create?: boolean } = {},
): Promise<void> {
  const found = await stat(dir).catch(() => null);
  if (found && !found.isDirectory())
    throw invalidInput(`${flag} ${dir} is a file, not a folder: nothing could be written there`, {
      field: flag,
    });
  // Without `create`, a folder that is not there yet is made only when there is something to write.
  if (!found && !create) return;
  const why = (error: unknown) => (error as NodeJS.ErrnoException).code ?? 'error';
  try {
    await mkdir(dir, { recursive: true });
  } catch (error) {
    throw invalidInput(`${flag} ${dir} cannot be created (${why(error)})`, { field: flag });
  }
  const probe = join(dir, `.dpone-write-check-${randomBytes(4).toString('hex')}`);
  try {
    await writeFile(probe, '');
  } catch (error) {
    throw invalidInput(`${flag} ${dir} is not writable (${why(error)})`, { field: flag });
  } finally {
    await rm(probe, { force: true });
  }
}
