import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/**
 * The import graph of the repository's production sources, read from their text (no compiler):
 * what the layering tests and the circle count (test/import-circles.ts) stand on. An edge records
 * whether it is type-only (`import type` / `export type`), which the runtime erases.
 */
export const ROOT = resolve(import.meta.dirname, '..');

export interface ImportEdge {
  /** Repo path (`harness/run.ts`) for a relative import, the bare specifier otherwise. */
  readonly to: string;
  readonly typeOnly: boolean;
}

export type ImportGraph = ReadonlyMap<string, readonly ImportEdge[]>;

/** Production .ts files under `dir` (tests, fixtures and test support excluded). */
export function sources(dir: string, root = ROOT): string[] {
  if (!existsSync(join(root, dir))) return [];
  return readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)).split(sep).join('/'))
    .filter(
      (file) =>
        !file.endsWith('.test.ts') && !file.endsWith('.test-support.ts') && !file.includes('/fixtures/'),
    )
    .sort();
}

/** Resolves a relative import to a repo path; bare specifiers stay as they are. */
export function target(file: string, specifier: string, root = ROOT): string {
  if (!specifier.startsWith('.')) return specifier;
  return relative(root, resolve(root, dirname(file), specifier))
    .split(sep)
    .join('/');
}

/** The imports of one source text: static (type-only or not), re-exports, side-effect imports and dynamic `import()`. */
export function importsOf(file: string, text: string, root = ROOT): ImportEdge[] {
  const statics = [
    ...text.matchAll(/(?:^|\n)\s*(import|export)(\s+type)?\b([^'"]*?)from\s+['"]([^'"]+)['"]/g),
  ].map((m) => ({
    to: target(file, m[4]!, root),
    // `import { type A, type B }` is type-only too when every name is.
    typeOnly: m[2] !== undefined || /^\s*\{\s*(?:type\s+\w+\s*(?:as\s+\w+\s*)?,?\s*)+\}\s*$/.test(m[3]!),
  }));
  const dynamic = [...text.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => ({
    to: target(file, m[1]!, root),
    typeOnly: false,
  }));
  // `import './x.ts'`: loaded for its effects, an import like any other.
  const bare = [...text.matchAll(/(?:^|\n)\s*import\s+['"]([^'"]+)['"]/g)].map((m) => ({
    to: target(file, m[1]!, root),
    typeOnly: false,
  }));
  return [...statics, ...dynamic, ...bare];
}

/** The graph of every production file under `dirs`. */
export function importGraph(dirs: readonly string[], root = ROOT): ImportGraph {
  const graph = new Map<string, ImportEdge[]>();
  for (const file of dirs.flatMap((dir) => sources(dir, root))) {
    graph.set(file, importsOf(file, readFileSync(join(root, file), 'utf8'), root));
  }
  return graph;
}

/**
 * The import circles: strongly connected components of more than one file (Tarjan), each sorted,
 * largest first. `typeOnly` false drops type-only edges first (what runs at load time).
 */
export function circles(graph: ImportGraph, options: { typeOnly?: boolean } = {}): string[][] {
  const keep = (edge: ImportEdge) => graph.has(edge.to) && (options.typeOnly !== false || !edge.typeOnly);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const edge of (graph.get(node) ?? []).filter(keep)) {
      if (!index.has(edge.to)) {
        visit(edge.to);
        low.set(node, Math.min(low.get(node)!, low.get(edge.to)!));
      } else if (onStack.has(edge.to)) {
        low.set(node, Math.min(low.get(node)!, index.get(edge.to)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found.sort((a, b) => b.length - a.length || a[0]!.localeCompare(b[0]!));
}
