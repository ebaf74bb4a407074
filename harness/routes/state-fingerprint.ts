import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';

/**
 * What differs between two kills that left the same durable state: the dead worker's holder name
 * (`host:pid:hex`) and wall-clock instants. Both are masked so only the logical state compares,
 * and so is a journal row's `row_checksum`: a digest of the row's fields, holder and instants
 * included, it differs wherever they do and says nothing the fields do not.
 */
export function maskVolatile(text: string): string {
  // A holder starts where a run of name characters starts (the lookbehind): without it every
  // position inside a long run (the dataset's 4 KiB labels) retried the match to the run's end.
  return text
    .replace(/"row_checksum":"[0-9a-f]{64}"/g, '"row_checksum":"<checksum>"')
    .replace(/(?<![\w.-])[\w.-]+:\d+:[0-9a-f]{8}/g, '<holder>')
    .replace(/\b1\d{12}\b/g, '<ms>');
}

async function dumpFolder(root: string, dir: string): Promise<string[]> {
  if (!existsSync(dir)) return [];
  const parts: string[] = [];
  for (const entry of (await readdir(dir, { withFileTypes: true })).sort((a, b) =>
    a.name < b.name ? -1 : 1,
  )) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) parts.push(...(await dumpFolder(root, path)));
    else parts.push(`${relative(root, path)}\n${await readFile(path, 'utf8')}`);
  }
  return parts;
}

/** sha256 of the text with holder names and instants masked. */
export function maskedDigest(text: string): string {
  return `sha256:${createHash('sha256').update(maskVolatile(text)).digest('hex')}`;
}

/**
 * A digest of a cell folder's logical durable state: the named database files as their engine
 * dumps them (`dump`: every table, rows sorted) and every file of the state folder, with holder
 * names and instants masked. Two first-attempt kills with equal fingerprints left the same state,
 * so recovery from them is the same test. `extra`: dumps of state kept elsewhere (a plug-in
 * target's own dump).
 */
export async function stateFingerprint(
  dir: string,
  files: readonly { readonly name: string; readonly dump: (path: string) => string }[],
  stateFolder: string,
  extra: readonly string[] = [],
): Promise<string> {
  const parts = files
    .filter(({ name }) => existsSync(join(dir, name)))
    .map(({ name, dump }) => `${name}\n${dump(join(dir, name))}`);
  parts.push(...(await dumpFolder(dir, join(dir, stateFolder))), ...extra);
  return maskedDigest(parts.join('\n\n'));
}
