import { appendFileSync, cpSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BUILT_IN_ENGINES } from './route-names.ts';
import { MANDATORY_ACCEPTANCE_ITEMS } from '../contracts/certification.ts';
import { acceptanceItems } from '../../harness/gate/acceptance-items.ts';
import { routeAcceptanceItems } from './route-acceptance.ts';
import {
  PACKAGE_ROOT,
  builtInConnectorDigest,
  folderFiles,
  harnessDigest,
  importClosure,
  runtimeDigest,
} from './code-digest.ts';
import { ENGINE_FOLDERS, builtInRouteCode } from './route-code.ts';
import { SOURCE_ENGINES, TARGET_ENGINES, runtimeRouteIds } from './engine-table.ts';
import { exampleRouteIds } from './engine-roles.ts';
import { suiteDigest, suiteFiles } from './shipped-suites.ts';

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A scratch copy of src/ and connectors/ (removed after the tests): its root, or its copy of `folder`. */
function copiedFolder(...folder: string[]): string {
  const copy = mkdtempSync(join(tmpdir(), 'dpone-digest-'));
  dirs.push(copy);
  cpSync(join(PACKAGE_ROOT, 'src'), join(copy, 'src'), { recursive: true });
  cpSync(join(PACKAGE_ROOT, 'connectors'), join(copy, 'connectors'), { recursive: true });
  return join(copy, ...folder);
}

describe('connector code digests, from the files', () => {
  const engines = Object.entries(ENGINE_FOLDERS);
  // The engines whose target is on the shared marker-fence kernel (as their registrations declare).
  const onMarkerKernel = engines.filter(
    ([engine]) => TARGET_ENGINES[engine]?.capability === 'transactional-commit-marker',
  );
  /** A runtime file of `folder` (not a test, not its harness/ parts): a connector's own code. */
  const ownFile = (folder: string) =>
    readdirSync(folder).find(
      (file) => file.endsWith('.ts') && file !== 'engine.ts' && !file.includes('.test'),
    )!;

  it('every built-in engine has a folder of code, and every route its two connectors', () => {
    expect(Object.keys(ENGINE_FOLDERS).sort()).toEqual([...BUILT_IN_ENGINES].sort());
    expect(Object.keys(ENGINE_FOLDERS).sort()).toEqual(
      [...new Set([...Object.keys(SOURCE_ENGINES), ...Object.keys(TARGET_ENGINES)])].sort(),
    );
    for (const folder of Object.values(ENGINE_FOLDERS)) expect(folderFiles(folder).length).toBeGreaterThan(2);
    for (const source of Object.keys(SOURCE_ENGINES))
      for (const target of Object.keys(TARGET_ENGINES))
        expect(builtInRouteCode(`${source}-to-${target}`)!.map((entry) => [entry.role, entry.name])).toEqual([
          ['source', source],
          ['target', target],
        ]);
    // A built-in source into a plug-in's own target engine is not a built-in route.
    expect(builtInRouteCode(`${Object.keys(SOURCE_ENGINES)[0]}-to-acme`)).toBeNull();
  });

  it('a connector is its folder plus what it imports: the kernel and contracts, never tests or unrelated code', () => {
    expect(onMarkerKernel.length).toBeGreaterThan(0);
    for (const [engine, folder] of engines) {
      // The digested files (an engine folder's harness/ parts are not the connector's code).
      const files = builtInConnectorDigest(folder).files.map((file) => file.path);
      if (onMarkerKernel.some(([name]) => name === engine))
        expect(files, engine).toContain('src/adapters/connectors/marker-fence/marker-target.ts');
      expect(files, engine).toContain('src/contracts/errors.ts');
      expect(files.some((file) => file.includes('.test.'))).toBe(false);
      expect(files).not.toContain('src/core/executor.ts');
      // No other engine's code.
      for (const other of Object.keys(ENGINE_FOLDERS).filter((name) => name !== engine))
        expect(
          files.some((file) => file.includes(`/${other}/`)),
          `${engine} has ${other}'s code`,
        ).toBe(false);
    }
  });

  it('one byte changed in a connector, or in the kernel it imports, changes its digest; a test file does not', () => {
    const copy = copiedFolder();
    const folders = onMarkerKernel.map(([engine]) => join(copy, 'connectors', engine));
    const digests = () => folders.map((folder) => builtInConnectorDigest(folder).digest);
    const before = digests();
    for (const folder of folders) {
      const test = readdirSync(folder).find((file) => file.endsWith('.test.ts'))!;
      writeFileSync(join(folder, test), '// a test changed\n');
    }
    expect(digests()).toEqual(before);
    appendFileSync(join(copy, 'src/core/executor.ts'), '\n');
    expect(digests()).toEqual(before);
    appendFileSync(join(copy, 'src/adapters/connectors/marker-fence/marker-sql.ts'), ' ');
    const kernelChanged = digests();
    kernelChanged.forEach((digest, i) => expect(digest).not.toBe(before[i]));
    for (const folder of folders) appendFileSync(join(folder, ownFile(folder)), '\n');
    digests().forEach((digest, i) => expect(digest).not.toBe(kernelChanged[i]));
  });

  it("an engine folder's digest is its runtime files (engine.ts included), never its harness/ parts", () => {
    const copy = copiedFolder();
    for (const [engine, engineFolder] of engines) {
      const files = importClosure(folderFiles(engineFolder)).map((file) => relative(PACKAGE_ROOT, file));
      const own = ownFile(engineFolder);
      expect(files).toContain(`connectors/${engine}/engine.ts`);
      expect(files).toContain(`connectors/${engine}/${own}`);
      const digested = builtInConnectorDigest(engineFolder).files.map((file) => file.path);
      expect(digested).toContain(`connectors/${engine}/engine.ts`);
      expect(digested).toContain(`connectors/${engine}/${own}`);
      expect(digested.some((file) => file.startsWith(`connectors/${engine}/harness/`))).toBe(false);
      expect(digested.some((file) => file.startsWith('harness/'))).toBe(false);
      // One byte in a harness part leaves the digest; one byte in the connector changes it.
      const folder = join(copy, 'connectors', engine);
      const before = builtInConnectorDigest(folder).digest;
      appendFileSync(join(folder, 'harness/parts.ts'), '\n');
      expect(builtInConnectorDigest(folder).digest, engine).toBe(before);
      appendFileSync(join(folder, own), '\n');
      expect(builtInConnectorDigest(folder).digest, engine).not.toBe(before);
    }
  });

  it("an engine folder's journal/ is in its digest and the runtime's; its harness/ parts in neither", () => {
    // The engine that keeps its journal in its folder (found, not named: the engine-name lists).
    const [engine, engineFolder] = Object.entries(ENGINE_FOLDERS).find(
      ([, f]) => existsSync(join(f, 'journal')) && existsSync(join(f, 'harness', 'engine.ts')),
    )!;
    const journalFile = readdirSync(join(engineFolder, 'journal')).find((f) => !f.includes('.test'))!;
    const path = `connectors/${engine}/journal/${journalFile}`;
    const digested = builtInConnectorDigest(engineFolder).files.map((file) => file.path);
    expect(digested).toContain(`connectors/${engine}/engine.ts`);
    expect(digested).toContain(path);
    expect(digested.some((file) => file.startsWith(`connectors/${engine}/harness/`))).toBe(false);
    expect(runtimeDigest().files.map((file) => file.path)).toContain(path);
    const folder = copiedFolder('connectors', engine);
    const before = builtInConnectorDigest(folder).digest;
    appendFileSync(join(folder, 'harness/engine.ts'), '\n');
    expect(builtInConnectorDigest(folder).digest).toBe(before);
    appendFileSync(join(folder, 'journal', journalFile), '\n');
    expect(builtInConnectorDigest(folder).digest).not.toBe(before);
  });

  it('the runtime digest covers src/, bin/, package.json and the lockfile; the suite digest every file of the suite', () => {
    const runtime = runtimeDigest().files.map((file) => file.path);
    const harness = harnessDigest().files.map((file) => file.path);
    // The engines moved into connectors/<engine>/ are runtime code too; their harness/ parts are not.
    for (const engine of Object.keys(ENGINE_FOLDERS)) {
      expect(runtime).toContain(`connectors/${engine}/engine.ts`);
      expect(runtime.some((file) => file.startsWith(`connectors/${engine}/harness/`))).toBe(false);
      expect(harness).toContain(`connectors/${engine}/harness/parts.ts`);
    }
    for (const file of ['package.json', 'package-lock.json', 'bin/dpone.js', 'src/core/executor.ts'])
      expect(runtime).toContain(file);
    expect(runtime.some((file) => file.startsWith('harness/') || file.includes('.test.'))).toBe(false);
    const full = suiteFiles('full').map((file) => relative(PACKAGE_ROOT, file));
    expect(full).toContain('scenarios/crash.yaml');
    expect(full).toContain('scenarios/airflow/airflow-live.yaml');
    expect(full.some((file) => file.startsWith('scenarios/large/'))).toBe(true);
    expect(suiteDigest('full').digest).not.toBe(suiteDigest('default').digest);
  });

  it('a record requires every acceptance item the gate decides, by name, and no other', () => {
    // The gate's own lines (evaluateGate): its preconditions, the sensitivity line and the run's.
    const gateLines = MANDATORY_ACCEPTANCE_ITEMS.filter(
      (id) => !acceptanceItems(exampleRouteIds()[0]!).some((item) => item.id === id),
    );
    expect(gateLines).toEqual([
      'evidence-integrity',
      'route-and-scope',
      'plan',
      'suite',
      'code-digests',
      'no-variant-survived',
      'run-scope',
      'run-verdict',
    ]);
    // Every route of this build, every engine's name (an alias, or no route), and a plug-in's route.
    const plugin = `${Object.keys(SOURCE_ENGINES)[0]}-to-some-plugin`;
    for (const route of [...runtimeRouteIds(), ...BUILT_IN_ENGINES, plugin]) {
      const gated = acceptanceItems(route).map((item) => item.id);
      expect([...routeAcceptanceItems(route)].sort(), route).toEqual([...gateLines, ...gated].sort());
    }
  });

  it("lists the items a record lacks in the order they always had: mandatory first (each engine's own items after: its folder's tests)", () => {
    for (const route of [...runtimeRouteIds(), ...BUILT_IN_ENGINES])
      expect(routeAcceptanceItems(route).slice(0, MANDATORY_ACCEPTANCE_ITEMS.length), route).toEqual(
        MANDATORY_ACCEPTANCE_ITEMS,
      );
  });
});
