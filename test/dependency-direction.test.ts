import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, importsOf, sources } from './import-graph.ts';

/**
 * The dependency direction of STYLE.md, checked on every production source file (tests and
 * fixtures may reach further: they compose real adapters on purpose):
 * - src never imports harness; contracts import only node:crypto and each other;
 * - ports import only contracts; core imports only contracts and ports;
 * - an adapter imports contracts, ports, its own folder and its driver — never core, cli or
 *   another adapter; connectors may import the shared transactional-marker kernel
 *   (connectors/marker-fence), which itself imports only contracts, ports and its own folder;
 * - an engine folder's runtime files (connectors/<engine>/, not its harness/ subfolder) are an
 *   adapter too: contracts, ports, the test hooks' index, the marker-fence kernel, their own folder
 *   and their driver — never src/core, src/cli, harness, another engine or their own harness parts;
 *   an engine's journal (connectors/<engine>/journal/) is a journal adapter and may also use the
 *   helpers every journal shares (src/adapters/journal/*.ts: row mapping, lease warning), as the
 *   journals still in src/adapters/journal/ do;
 * - the test hooks (src/test-hooks: fault plan, harness clock, unsafe-variant requests) import only
 *   contracts, ports and node built-ins; everyone else, adapters included, imports their index
 *   only, and only they read the variables the harness sets.
 */

function violations(dir: string, allowed: (file: string, imported: string) => boolean): string[] {
  return sources(dir).flatMap((file) =>
    importsOf(file, readFileSync(join(ROOT, file), 'utf8'))
      .map((edge) => edge.to)
      .filter((imported) => !allowed(file, imported))
      .map((imported) => `${file} -> ${imported}`),
  );
}

const isLocal = (imported: string) =>
  imported.startsWith('src/') ||
  imported.startsWith('harness/') ||
  imported.startsWith('connectors/') ||
  imported.startsWith('testing/');
/** `connectors/<engine>/` of an engine folder's file; its harness parts are `connectors/<engine>/harness/`. */
const engineFolder = (file: string) => file.split('/').slice(0, 2).join('/') + '/';
const isEngineHarness = (file: string) => file.startsWith('connectors/') && file.split('/')[2] === 'harness';
/** The runtime files of the engine folders (connectors/*, without their harness/ subfolders). */
const engineRuntime = (allowed: (file: string, imported: string) => boolean) =>
  violations('connectors', allowed).filter((line) => !isEngineHarness(line.split(' -> ')[0]!));
const KERNEL = 'src/adapters/connectors/marker-fence/';
/** The journal helpers every journal adapter shares (src/adapters/journal/*.ts, not its engines' folders). */
const JOURNAL_SHARED = 'src/adapters/journal/';
const isSharedJournalFile = (imported: string) =>
  imported.startsWith(JOURNAL_SHARED) && !imported.slice(JOURNAL_SHARED.length).includes('/');
/** An engine's journal (connectors/<engine>/journal/): a journal adapter, so it may use the shared journal helpers. */
const isEngineJournal = (file: string) => file.startsWith('connectors/') && file.split('/')[2] === 'journal';
const TEST_HOOKS = 'src/test-hooks/index.ts';

describe('dependency direction', () => {
  it('src never imports harness', () => {
    expect(violations('src', (_f, imported) => !imported.startsWith('harness/'))).toEqual([]);
    // Nor an engine's harness parts (connectors/<engine>/harness/).
    expect(violations('src', (_f, imported) => !isEngineHarness(imported))).toEqual([]);
  });

  it('contracts import only node:crypto and each other', () => {
    expect(
      violations(
        'src/contracts',
        (_f, imported) => imported === 'node:crypto' || imported.startsWith('src/contracts/'),
      ),
    ).toEqual([]);
  });

  it('ports import only contracts', () => {
    expect(
      violations(
        'src/ports',
        (_f, imported) => imported.startsWith('src/contracts/') || imported.startsWith('src/ports/'),
      ),
    ).toEqual([]);
  });

  it('core imports only contracts, ports and node built-ins', () => {
    expect(
      violations(
        'src/core',
        (_f, imported) =>
          imported.startsWith('node:') ||
          imported.startsWith('src/contracts/') ||
          imported.startsWith('src/ports/') ||
          imported.startsWith('src/core/'),
      ),
    ).toEqual([]);
  });

  it('adapters never import core, cli or another adapter', () => {
    expect(
      violations('src/adapters', (file, imported) => {
        if (!isLocal(imported)) return true;
        if (imported.startsWith('src/contracts/') || imported.startsWith('src/ports/')) return true;
        if (imported === TEST_HOOKS) return true;
        // Every connector may build on the kernel; the kernel never reaches into a connector.
        if (imported.startsWith(KERNEL) && file.startsWith('src/adapters/connectors/')) return true;
        const [, , kind, impl] = file.split('/');
        const [top, adapters, importedKind, importedImpl, ...rest] = imported.split('/');
        if (top !== 'src' || adapters !== 'adapters' || importedKind !== kind) return false;
        // Same implementation folder, or a file shared by the whole kind (e.g. journal/journal-row.ts).
        return rest.length === 0 || importedImpl === impl;
      }),
    ).toEqual([]);
  });

  it("an engine folder's runtime files import only contracts, ports, the test hooks, the kernel and their own folder", () => {
    const allowed = (file: string, imported: string) =>
      !isLocal(imported) ||
      imported.startsWith('src/contracts/') ||
      imported.startsWith('src/ports/') ||
      imported === TEST_HOOKS ||
      imported.startsWith(KERNEL) ||
      (isEngineJournal(file) && isSharedJournalFile(imported)) ||
      (imported.startsWith(engineFolder(file)) && !isEngineHarness(imported));
    expect(engineRuntime(allowed)).toEqual([]);
    // The rule sees a back-import into the harness, the cli, another engine and the engine's own harness parts.
    const file = 'connectors/clickhouse/clickhouse-target.ts';
    for (const imported of [
      'harness/run.ts',
      'src/cli/main.ts',
      'src/core/executor.ts',
      'connectors/postgres/engine.ts',
      'connectors/clickhouse/harness/parts.ts',
    ])
      expect(allowed(file, imported)).toBe(false);
    expect(allowed(file, 'connectors/clickhouse/clickhouse-fence.ts')).toBe(true);
    // An engine's journal may use the shared journal helpers; its connector may not, nor another journal.
    const journal = 'connectors/mssql/journal/mssql-journal.ts';
    expect(allowed(journal, 'src/adapters/journal/journal-row.ts')).toBe(true);
    expect(allowed(journal, 'connectors/postgres/journal/postgres-journal.ts')).toBe(false);
    expect(allowed('connectors/mssql/mssql-target.ts', 'src/adapters/journal/journal-row.ts')).toBe(false);
    expect(sources('connectors').some((f) => f === 'connectors/clickhouse/engine.ts')).toBe(true);
  });

  it('the marker-fence kernel imports only contracts, ports and its own folder', () => {
    expect(
      violations(
        KERNEL.slice(0, -1),
        (_f, imported) =>
          !isLocal(imported) ||
          imported.startsWith('src/contracts/') ||
          imported.startsWith('src/ports/') ||
          imported === TEST_HOOKS ||
          imported.startsWith(KERNEL),
      ),
    ).toEqual([]);
  });

  it('the test hooks import only contracts, ports, node built-ins and each other', () => {
    expect(
      violations(
        'src/test-hooks',
        (_f, imported) =>
          imported.startsWith('node:') ||
          imported.startsWith('src/contracts/') ||
          imported.startsWith('src/ports/') ||
          imported.startsWith('src/test-hooks/'),
      ),
    ).toEqual([]);
  });

  it('the certified path reaches the test hooks through their index only, and only they read the harness variables', () => {
    const outside = (dir: string) =>
      violations(
        dir,
        (file, imported) =>
          file.startsWith('src/test-hooks/') ||
          !imported.startsWith('src/test-hooks/') ||
          imported === TEST_HOOKS,
      );
    expect([...outside('src'), ...outside('harness'), ...outside('connectors')]).toEqual([]);
    // The variables by name, or read through their constants, in code (comments stripped).
    const engineRuntimeFiles = sources('connectors').filter((file) => !isEngineHarness(file));
    const reads = [...sources('src'), ...engineRuntimeFiles]
      .filter((file) => !file.startsWith('src/test-hooks/'))
      .filter((file) => {
        const code = readFileSync(join(ROOT, file), 'utf8')
          .replace(/\/\*[\s\S]*?\*\//g, '')
          .replace(/(^|[^:])\/\/.*$/gm, '$1');
        const named = /['"`]DPONE_(HARNESS|UNSAFE_VARIANT|FAULT_PLAN|CLOCK_OFFSET_MS)['"`]/.test(code);
        const read = /\[\s*(HARNESS_ENV|UNSAFE_VARIANT_ENV|FAULT_PLAN_ENV|CLOCK_OFFSET_ENV)\s*\]/.test(code);
        // The catalogue names its two variables (errors cite them as the field); it reads neither.
        return read || (named && file !== 'src/ports/unsafe-variants.ts');
      });
    expect(reads).toEqual([]);
  });

  it('production code never imports the testing module, test support or vitest', () => {
    // The conformance suites and the connector kit are `dpone-cert/testing` (testing/): a plug-in's
    // tests and harness parts use them, the runtime and the harness never do.
    const isTestCode = (imported: string) =>
      imported === 'vitest' ||
      imported.startsWith('vitest/') ||
      imported === 'dpone-cert/testing' ||
      imported.startsWith('testing/') ||
      imported.endsWith('.test.ts') ||
      imported.endsWith('.test-support.ts') ||
      imported.includes('/fixtures/');
    for (const dir of ['src', 'harness', 'bin', 'connectors']) {
      expect(violations(dir, (_f, imported) => !isTestCode(imported))).toEqual([]);
    }
    expect(isTestCode(importsOf('harness/run.ts', "import '../testing/index.ts';")[0]!.to)).toBe(true);
  });

  it('the check sees violations: a planted import of every form is read as an edge', () => {
    const planted = [
      "import { run } from '../../harness/run.ts';",
      "import type { Run } from '../../harness/run.ts';",
      "export { run } from '../../harness/run.ts';",
      "import '../../harness/run.ts';",
      "const m = await import('../../harness/run.ts');",
    ];
    for (const line of planted)
      expect(importsOf('src/core/executor.ts', `// a file\n${line}\n`).map((edge) => edge.to)).toEqual([
        'harness/run.ts',
      ]);
    expect(
      importsOf('src/core/executor.ts', readFileSync(join(ROOT, 'src/core/executor.ts'), 'utf8')).length,
    ).toBeGreaterThan(0);
  });
});
