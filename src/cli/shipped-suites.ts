import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { PACKAGE_ROOT, digestFiles } from './code-digest.ts';
import type { FileDigests } from './code-digest.ts';

/**
 * The suites this runtime ships, as globs relative to the package. `default` is what `npm run
 * certify` runs; `full` adds scenarios/airflow/ (real Airflow retries), scenarios/large/
 * (10,000-row partitions) and scenarios/storage/ (power loss on a FUSE filesystem, full disks on a
 * tmpfs, a damaged journal) and is the suite
 * a route is certified on; `huge` is never in CI.
 */
export const SUITE_GLOBS: Readonly<Record<string, readonly string[]>> = {
  default: ['scenarios/*.yaml'],
  full: [
    'scenarios/*.yaml',
    'scenarios/airflow/*.yaml',
    'scenarios/large/*.yaml',
    'scenarios/storage/*.yaml',
  ],
  huge: ['scenarios/huge/*.yaml'],
};

/**
 * The files of a shipped suite, absolute and sorted (every route's; a run takes those that fit it).
 * Each glob is `<folder>/*.<ext>`: a folder listing, no pattern matcher (this is on `dpone run`'s
 * start path when a record is checked).
 */
export function suiteFiles(name: string, root: string = PACKAGE_ROOT): string[] {
  const files = (SUITE_GLOBS[name] ?? []).flatMap((glob) => {
    const folder = dirname(glob);
    const ext = basename(glob).replace(/^\*/, '');
    try {
      return readdirSync(join(root, folder))
        .filter((file) => file.endsWith(ext))
        .map((file) => join(root, folder, file));
    } catch {
      return [];
    }
  });
  return [...new Set(files)].sort();
}

/**
 * The digest of a shipped suite: its name and every file it holds, byte for byte. A record names
 * it; `dpone run` recomputes it, so a record earned on another or a changed suite does not apply.
 */
export function suiteDigest(
  name: string,
  root: string = PACKAGE_ROOT,
): FileDigests & { readonly name: string } {
  const files = digestFiles(suiteFiles(name, root), root);
  const digest = createHash('sha256').update(`suite ${name}\n${files.digest}`).digest('hex');
  return { ...files, name, digest: `sha256:${digest}` };
}
