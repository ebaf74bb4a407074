import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/**
 * Digests of code, computed from the files themselves (never a hand-kept version string): what a
 * certification binds and what `dpone run` recomputes before it claims protection.
 *
 * A connector's code is its folder's production files plus every file they import, followed
 * through the module graph (relative `import … from`, `export … from`, `import('…')`), so the
 * kernel and contracts a connector builds on count, and the digest stays right when files move.
 * Each digest is sha256 over a manifest of `path-relative-to-root NUL sha256(file)` lines, sorted:
 * renaming a file changes it, and so does one byte of any file.
 */

/** The package's root folder (where package.json is). */
export const PACKAGE_ROOT = resolve(import.meta.dirname, '..', '..');

/** Test files and fixtures are not production code: they never enter a digest. */
export function isProductionFile(path: string): boolean {
  const name = path.split(sep).pop() ?? '';
  return (
    /\.(ts|js|cjs|mjs|json)$/.test(name) &&
    !/\.test(-support)?\.ts$/.test(name) &&
    !name.includes('.test.') &&
    !path.split(sep).includes('fixtures')
  );
}

const STATIC_IMPORT = /(?:^|\n|;)\s*(?:import|export)\b[^'"`;]*?\bfrom\s+['"]([^'"]+)['"]/g;
const BARE_IMPORT = /(?:^|\n|;)\s*import\s+['"]([^'"]+)['"]/g;
const DYNAMIC_IMPORT = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The relative specifiers a module imports (bare package names are the lockfile's business). */
function relativeImports(text: string): string[] {
  const found: string[] = [];
  for (const pattern of [STATIC_IMPORT, BARE_IMPORT, DYNAMIC_IMPORT])
    for (const match of text.matchAll(pattern)) if (match[1]!.startsWith('.')) found.push(match[1]!);
  return found;
}

function sha256(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

export interface FileDigests {
  /** `sha256:` over the sorted manifest. */
  readonly digest: string;
  /** Each file, relative to the root, with its sha256 (hex). */
  readonly files: readonly { readonly path: string; readonly sha256: string }[];
}

/** The digest of a set of files, named relative to `root`. A missing file is named as missing. */
export function digestFiles(files: Iterable<string>, root: string): FileDigests {
  const entries = [...new Set(files)]
    .map((file) => {
      const path = relative(root, file).split(sep).join('/');
      let content: string;
      try {
        content = sha256(readFileSync(file));
      } catch {
        content = 'missing';
      }
      return { path, sha256: content };
    })
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const manifest = entries.map((entry) => `${entry.path}\0${entry.sha256}\n`).join('');
  return { digest: `sha256:${sha256(manifest)}`, files: entries };
}

/** Production files of a folder, recursively (none when it does not exist). */
export function folderFiles(folder: string): string[] {
  let entries;
  try {
    entries = readdirSync(folder, { withFileTypes: true, recursive: true });
  } catch {
    return [];
  }
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((file) => isProductionFile(relative(folder, file)));
}

/**
 * Every file reachable from `roots` by relative imports, the roots included. A specifier that
 * does not resolve to a file is kept (as missing), so a deleted import changes the digest too.
 */
export function importClosure(roots: readonly string[]): string[] {
  const seen = new Set<string>();
  const queue = [...roots];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    if (!/\.(ts|js|mjs|cjs)$/.test(file)) continue;
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const specifier of relativeImports(text)) queue.push(resolve(dirname(file), specifier));
  }
  return [...seen];
}

/**
 * A built-in connector's code: its folder's production files and everything they import. An
 * engine folder's `harness/` subfolder (connectors/<engine>/harness/: its inspector, server service
 * and route parts) is the certifier's code, not the connector's: the runtime never loads it, so it
 * is left out (a certification binds what `dpone run` executes; the harness's own code is bound by
 * the evidence's harness digest).
 */
export function builtInConnectorDigest(folder: string): FileDigests {
  const harness = join(folder, ENGINE_HARNESS_FOLDER) + sep;
  const roots = folderFiles(folder).filter((file) => !file.startsWith(harness));
  return digestFiles(importClosure(roots), PACKAGE_ROOT);
}

/** The subfolder of an engine folder that holds its harness parts (never in the connector digest). */
export const ENGINE_HARNESS_FOLDER = 'harness';

/**
 * A plug-in connector's code: its module and everything it imports by relative path, plus the
 * package.json of its own package when it has one apart from this one (its dependencies' versions).
 * Named relative to the module's folder, so the same plug-in digests alike wherever it is installed.
 */
export function pluginConnectorDigest(moduleFile: string): FileDigests {
  const files = importClosure([moduleFile]);
  const manifest = ownPackageJson(moduleFile);
  if (manifest !== null) files.push(manifest);
  return digestFiles(files, manifest !== null ? dirname(manifest) : dirname(moduleFile));
}

/** The nearest package.json above a plug-in's module, unless it is dpone's own. */
function ownPackageJson(moduleFile: string): string | null {
  for (let dir = dirname(moduleFile); ; dir = dirname(dir)) {
    const candidate = join(dir, 'package.json');
    try {
      readFileSync(candidate);
      return dir === PACKAGE_ROOT ? null : candidate;
    } catch {
      // not here: go up
    }
    if (dirname(dir) === dir) return null;
  }
}

/**
 * The runtime's code: the package's own production files (src/, bin/), package.json and the
 * lockfile (which pins every dependency the runtime loads).
 */
export function runtimeDigest(root: string = PACKAGE_ROOT): FileDigests {
  return digestFiles(
    [
      ...folderFiles(join(root, 'src')),
      ...folderFiles(join(root, 'bin')),
      ...engineFiles(root).runtime,
      join(root, 'package.json'),
      join(root, 'package-lock.json'),
    ],
    root,
  );
}

/** The harness's code (harness/ and the engines' harness/ subfolders): recorded for review; the runtime never checks it. */
export function harnessDigest(root: string = PACKAGE_ROOT): FileDigests {
  return digestFiles([...folderFiles(join(root, 'harness')), ...engineFiles(root).harness], root);
}

/** The production files of the engine folders (connectors/<engine>/): runtime, and harness parts. */
function engineFiles(root: string): { runtime: string[]; harness: string[] } {
  const files = folderFiles(join(root, ENGINES_FOLDER));
  const inHarness = (file: string) =>
    relative(join(root, ENGINES_FOLDER), file).split(sep)[1] === ENGINE_HARNESS_FOLDER;
  return { runtime: files.filter((file) => !inHarness(file)), harness: files.filter(inHarness) };
}

/** Where the built-in engines that have moved into one folder each live (connectors/<engine>/). */
export const ENGINES_FOLDER = 'connectors';
