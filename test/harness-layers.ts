import type { ImportGraph } from './import-graph.ts';

/**
 * The floors of harness/, bottom first: a production file may import its own floor and the floors
 * below it, never one above. Written once here; test/harness-layering.test.ts checks the tree
 * against it. A floor lists folders (`harness/x/`) or files; the longest matching entry decides.
 * An engine's harness parts in its own folder (`connectors/<engine>/harness/`) take floors by
 * subfolder, the same for every engine (`*` is one folder name): `env/` its server service and
 * endpoint (environment), `inspectors/` its target inspector (inspectors), `gate/` its acceptance
 * items (checkers: its harness entry lists them), and the rest, its route parts and their registry entry (routes).
 */
export const HARNESS_FLOORS: readonly (readonly [floor: string, paths: readonly string[]])[] = [
  // What the evidence says: verdicts, evidence and plan records, check names, datasets, scenarios.
  [
    'vocabulary',
    [
      'harness/verdict.ts',
      'harness/data/',
      'harness/evidence/',
      'harness/scenario/',
      'harness/plan/trace.ts',
      'harness/plan/mutation-window.ts',
      'harness/plan/plan-record.ts',
    ],
  ],
  // Judging stored snapshots: pure functions, below everything that reads a database.
  // An acceptance item is one too: it decides a gate line from stored cells (an engine's in its folder).
  [
    'checkers',
    [
      'harness/checkers/',
      'harness/gate/acceptance-item.ts',
      'harness/gate/cell-verdicts.ts',
      'connectors/*/harness/gate/',
    ],
  ],
  // What runs a database or a worker process for a cell.
  ['environment', ['harness/env/', 'harness/workers/', 'connectors/*/harness/env/']],
  // Reading a target's and a source's rows with the harness's own connections, into snapshots.
  ['inspectors', ['harness/inspectors/', 'connectors/*/harness/inspectors/']],
  // A route: its parts (which compose an inspector) and cell worlds.
  ['routes', ['harness/routes/', 'harness/plan/cell.ts', 'connectors/*/harness/']],
  // Fault kinds: planning and running their cells.
  ['faults', ['harness/faults/']],
  // The plan: cells from scenarios, traces and the fault modules.
  ['plan', ['harness/plan/', 'harness/scenario/route-suite.ts', 'harness/scenario/scenario-suites.ts']],
  // Running planned cells in their worlds.
  ['runner', ['harness/runner/']],
  // What reads, writes, merges, gates and reports evidence.
  [
    'results',
    [
      'harness/merge/',
      'harness/gate/',
      'harness/reporters/',
      'harness/evidence/evidence-verify.ts',
      'harness/evidence/evidence-writer.ts',
      'harness/evidence/evidence-reader.ts',
    ],
  ],
  // One certification run end to end.
  ['run', ['harness/run.ts']],
  // Commands: the only floor that wires everything.
  ['commands', ['harness/cli/', 'harness/doctor/']],
];

/** A harness file: under harness/, or an engine's harness parts (connectors/<engine>/harness/). */
export function isHarnessFile(file: string): boolean {
  const parts = file.split('/');
  return parts[0] === 'harness' || (parts[0] === 'connectors' && parts[2] === 'harness');
}

/** `path` with each `*` folder name replaced by `file`'s folder name at that place. */
function instantiate(path: string, file: string): string {
  const names = file.split('/');
  return path
    .split('/')
    .map((name, index) => (name === '*' ? (names[index] ?? '*') : name))
    .join('/');
}

/** The floor index of a harness file, or -1 when no floor names it. */
export function floorOf(file: string, floors = HARNESS_FLOORS): number {
  let best = -1;
  let length = -1;
  floors.forEach(([, patterns], index) => {
    for (const pattern of patterns) {
      const path = instantiate(pattern, file);
      const matches = path.endsWith('/') ? file.startsWith(path) : file === path;
      if (matches && path.length > length) {
        best = index;
        length = path.length;
      }
    }
  });
  return best;
}

/** Every import of a harness file into a higher floor (`from -> to (floor -> floor)`). */
export function backImports(graph: ImportGraph, floors = HARNESS_FLOORS): string[] {
  const found: string[] = [];
  for (const [file, edges] of graph) {
    if (!isHarnessFile(file)) continue;
    const from = floorOf(file, floors);
    for (const edge of edges) {
      if (!isHarnessFile(edge.to)) continue;
      const to = floorOf(edge.to, floors);
      if (to > from)
        found.push(`${file} -> ${edge.to} (${floors[from]?.[0] ?? '?'} -> ${floors[to]?.[0] ?? '?'})`);
    }
  }
  return found.sort();
}

/** Harness files no floor names (a new folder must be given a floor). */
export function unplaced(graph: ImportGraph, floors = HARNESS_FLOORS): string[] {
  return [...graph.keys()].filter((file) => isHarnessFile(file) && floorOf(file, floors) < 0);
}
