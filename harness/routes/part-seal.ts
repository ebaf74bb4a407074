import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import type { StorageSeal } from './storage-seal.ts';
import type { PartSeal } from './parts.ts';

/** A part that can seal its storage for one attempt. */
interface Sealable {
  seal(): Promise<PartSeal>;
}

/**
 * Seals a cell's source and its target (with the fence) for one attempt: each part seals its own
 * storage, and the attempt runs `workloadFile` with the URLs the seals name, written beside it as
 * `workload-sealed.yaml`. Releasing restores both and says what either saw touched.
 */
export async function sealParts(
  dir: string,
  workloadFile: string,
  parts: { readonly source: Sealable; readonly target: Sealable },
): Promise<StorageSeal> {
  const source = await parts.source.seal();
  let target: PartSeal;
  try {
    target = await parts.target.seal();
  } catch (error) {
    await source.release();
    throw error;
  }
  const document = parse(await readFile(workloadFile, 'utf8')) as {
    source: { url: string };
    target: { url: string };
  };
  document.source.url = source.url;
  document.target.url = target.url;
  const sealed = join(dir, 'workload-sealed.yaml');
  await writeFile(sealed, stringify(document));
  return {
    workloadFile: sealed,
    sealed: `source: ${source.sealed}; target: ${target.sealed}`,
    async release() {
      return [...(await source.release()), ...(await target.release())];
    },
  };
}
