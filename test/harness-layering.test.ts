import { describe, expect, it } from 'vitest';
import { HARNESS_FLOORS, backImports, floorOf, unplaced } from './harness-layers.ts';
import { circles, importGraph, importsOf } from './import-graph.ts';
import type { ImportGraph } from './import-graph.ts';

/**
 * The layering of harness/ (test/harness-layers.ts: its floors, bottom first), checked on every
 * production file the way test/dependency-direction.test.ts checks src/. Tests and fixtures may
 * reach further: they compose real parts on purpose.
 */
const graph = importGraph(['harness', 'connectors']);

describe('harness layering', () => {
  it('gives every production file of harness/ a floor', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(unplaced(graph)).toEqual([]);
    // An engine folder's harness parts are harness files with floors too.
    expect(
      [...graph.keys()].filter((file) => /^connectors\/[^/]+\/harness\//.test(file)).length,
    ).toBeGreaterThan(5);
  });

  it('never imports a higher floor', () => {
    expect(backImports(graph)).toEqual([]);
  });

  it('keeps the checkers pure: no driver, no file system, nothing above the vocabulary but src', () => {
    // Checkers judge stored snapshots (the live check and `certify verify` agree); reading a
    // database is the inspectors' floor, above the environment.
    const reached = [...graph]
      .filter(([file]) => file.startsWith('harness/checkers/'))
      .flatMap(([file, edges]) => edges.map((edge) => `${file} -> ${edge.to}`))
      .filter((line) => {
        const to = line.split(' -> ')[1]!;
        if (to === 'node:crypto' || to.startsWith('src/contracts/') || to.startsWith('src/core/'))
          return false;
        return !to.startsWith('harness/') || floorOf(to) > floorOf('harness/checkers/check-cell.ts');
      });
    expect(reached).toEqual([]);
  });

  it('has no import circle, type-only imports included', () => {
    expect(circles(graph)).toEqual([]);
  });

  it('leaves no import circle in the whole tree, type-only imports included', () => {
    // The last two were the marker-fence kernel's: openMarkerTarget (open-marker-target.ts) now
    // loads the unsafe target the real one used to, and FenceParams lives beside the SQL it fills.
    expect(
      circles(importGraph(['src', 'harness', 'bin', 'bench', 'examples', 'testing', 'connectors'])),
    ).toEqual([]);
  });

  it('reports a planted back-import and a planted circle', () => {
    // The gate importing the CLI, as it once did for the shipped suites: a back-import and a circle.
    const text =
      "import type { X } from '../evidence/evidence-types.ts';\nimport { y } from '../cli/certify-run.ts';\n";
    const planted: ImportGraph = new Map([
      ...graph,
      [
        'harness/gate/suite-check.ts',
        [
          ...(graph.get('harness/gate/suite-check.ts') ?? []),
          ...importsOf('harness/gate/suite-check.ts', text),
        ],
      ],
    ]);
    const line = 'harness/gate/suite-check.ts -> harness/cli/certify-run.ts (results -> commands)';
    expect(backImports(graph)).not.toContain(line);
    expect(backImports(planted)).toContain(line);
    expect(circles(planted).flat()).toEqual(
      expect.arrayContaining(['harness/cli/certify-run.ts', 'harness/gate/suite-check.ts']),
    );
  });

  it("reports a planted back-import from an engine folder's harness parts", () => {
    // ClickHouse's inspector (inspectors floor) importing its route parts (routes floor).
    const file = 'connectors/clickhouse/harness/inspectors/clickhouse-inspector.ts';
    const planted: ImportGraph = new Map([
      ...graph,
      [file, [...(graph.get(file) ?? []), ...importsOf(file, "import { parts } from '../parts.ts';\n")]],
    ]);
    const line = `${file} -> connectors/clickhouse/harness/parts.ts (inspectors -> routes)`;
    expect(backImports(graph)).not.toContain(line);
    expect(backImports(planted)).toContain(line);
  });

  it('reads type-only, re-exported and dynamic imports', () => {
    const edges = importsOf(
      'harness/gate/x.ts',
      [
        "import type { A } from './a.ts';",
        "import { type B, type C as D } from './b.ts';",
        "import { type E, f } from './c.ts';",
        "export { g } from '../plan/g.ts';",
        "const h = await import('../run.ts');",
      ].join('\n'),
    );
    expect(edges).toEqual([
      { to: 'harness/gate/a.ts', typeOnly: true },
      { to: 'harness/gate/b.ts', typeOnly: true },
      { to: 'harness/gate/c.ts', typeOnly: false },
      { to: 'harness/plan/g.ts', typeOnly: false },
      { to: 'harness/run.ts', typeOnly: false },
    ]);
  });

  it('places a file by its longest matching floor entry', () => {
    const floor = (file: string) => HARNESS_FLOORS[floorOf(file)]![0];
    expect(floor('harness/plan/trace.ts')).toBe('vocabulary');
    expect(floor('harness/plan/planner.ts')).toBe('plan');
    expect(floor('harness/evidence/evidence-types.ts')).toBe('vocabulary');
    expect(floor('harness/evidence/evidence-writer.ts')).toBe('results');
    expect(floor('harness/cli/certify-run.ts')).toBe('commands');
    // An engine folder's harness parts, by subfolder, whatever the engine.
    expect(floor('connectors/clickhouse/harness/env/clickhouse-server.ts')).toBe('environment');
    expect(floor('connectors/clickhouse/harness/inspectors/clickhouse-inspector.ts')).toBe('inspectors');
    expect(floor('connectors/clickhouse/harness/parts.ts')).toBe('routes');
    expect(floor('connectors/other/harness/env/other-server.ts')).toBe('environment');
    // Its runtime files are no harness file: no floor (test/dependency-direction.test.ts rules them).
    expect(floorOf('connectors/clickhouse/clickhouse-target.ts')).toBe(-1);
  });
});
