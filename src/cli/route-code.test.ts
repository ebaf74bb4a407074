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
import { SOURCE_ENGINES, TARGET_ENGINES } from './engine-table.ts';
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
  it('every built-in engine has a folder of code, and every route its two connectors', () => {
    expect(Object.keys(ENGINE_FOLDERS).sort()).toEqual([...BUILT_IN_ENGINES].sort());
    expect(Object.keys(ENGINE_FOLDERS).sort()).toEqual(
      [...new Set([...Object.keys(SOURCE_ENGINES), ...Object.keys(TARGET_ENGINES)])].sort(),
    );
    for (const folder of Object.values(ENGINE_FOLDERS)) expect(folderFiles(folder).length).toBeGreaterThan(2);
    expect(builtInRouteCode('postgres-to-clickhouse')!.map((entry) => [entry.role, entry.name])).toEqual([
      ['source', 'postgres'],
      ['target', 'clickhouse'],
    ]);
    expect(builtInRouteCode('sqlite-to-acme')).toBeNull();
  });

  it('a connector is its folder plus what it imports: the kernel and contracts, never tests or unrelated code', () => {
    // The digested files (an engine folder's harness/ parts are not the connector's code).
    const files = builtInConnectorDigest(ENGINE_FOLDERS.sqlite!).files.map((file) => file.path);
    expect(files).toContain('src/adapters/connectors/marker-fence/marker-target.ts');
    expect(files).toContain('src/contracts/errors.ts');
    expect(files.some((file) => file.includes('.test.'))).toBe(false);
    expect(files).not.toContain('src/core/executor.ts');
    expect(files.some((file) => file.includes('/postgres/'))).toBe(false);
  });

  it('one byte changed in a connector, or in the kernel it imports, changes its digest; a test file does not', () => {
    const copy = copiedFolder();
    const folder = join(copy, 'connectors/sqlite');
    const before = builtInConnectorDigest(folder).digest;
    writeFileSync(join(folder, 'sqlite-target.test.ts'), '// a test changed\n');
    expect(builtInConnectorDigest(folder).digest).toBe(before);
    appendFileSync(join(copy, 'src/core/executor.ts'), '\n');
    expect(builtInConnectorDigest(folder).digest).toBe(before);
    appendFileSync(join(copy, 'src/adapters/connectors/marker-fence/marker-sql.ts'), ' ');
    const kernelChanged = builtInConnectorDigest(folder).digest;
    expect(kernelChanged).not.toBe(before);
    appendFileSync(join(folder, 'sqlite-target.ts'), '\n');
    expect(builtInConnectorDigest(folder).digest).not.toBe(kernelChanged);
  });

  it("an engine folder's digest is its runtime files (engine.ts included), never its harness/ parts", () => {
    const files = importClosure(folderFiles(ENGINE_FOLDERS.clickhouse!)).map((file) =>
      relative(PACKAGE_ROOT, file),
    );
    expect(files).toContain('connectors/clickhouse/engine.ts');
    expect(files).toContain('connectors/clickhouse/clickhouse-target.ts');
    const digested = builtInConnectorDigest(ENGINE_FOLDERS.clickhouse!).files.map((file) => file.path);
    expect(digested).toContain('connectors/clickhouse/clickhouse-target.ts');
    expect(digested.some((file) => file.startsWith('connectors/clickhouse/harness/'))).toBe(false);
    expect(digested.some((file) => file.startsWith('harness/'))).toBe(false);
    // One byte in a harness part leaves the digest; one byte in the connector changes it.
    const folder = copiedFolder('connectors/clickhouse');
    const before = builtInConnectorDigest(folder).digest;
    appendFileSync(join(folder, 'harness/parts.ts'), '\n');
    expect(builtInConnectorDigest(folder).digest).toBe(before);
    appendFileSync(join(folder, 'clickhouse-staging.ts'), '\n');
    expect(builtInConnectorDigest(folder).digest).not.toBe(before);
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
    // The engines moved into connectors/<engine>/ are runtime code too; their harness/ parts are not.
    expect(runtime).toContain('connectors/clickhouse/clickhouse-target.ts');
    expect(runtime.some((file) => file.startsWith('connectors/clickhouse/harness/'))).toBe(false);
    expect(harnessDigest().files.map((file) => file.path)).toContain(
      'connectors/clickhouse/harness/parts.ts',
    );
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
      (id) => !acceptanceItems('sqlite-to-clickhouse').some((item) => item.id === id),
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
    for (const route of [
      'sqlite',
      'postgres',
      'postgres-to-postgres',
      'sqlite-to-clickhouse',
      'sqlite-to-postgres',
      'postgres-to-sqlite',
      'sqlite-to-some-plugin',
    ]) {
      const gated = acceptanceItems(route).map((item) => item.id);
      expect([...routeAcceptanceItems(route)].sort(), route).toEqual([...gateLines, ...gated].sort());
    }
  });

  it('lists the items a record lacks in the order they always had: mandatory, then the target engine items and the plain-write item', () => {
    const mandatory = MANDATORY_ACCEPTANCE_ITEMS;
    expect(routeAcceptanceItems('sqlite-to-clickhouse')).toEqual(mandatory);
    expect(routeAcceptanceItems('postgres')).toEqual([
      ...mandatory,
      'pooler-values-exact',
      'lost-commit-diverged',
      'stall-bounded',
      'power-loss-server-durable',
      'full-disk-server-refused-then-one',
      'journal-corruption-server-detected',
      'shadow-report-exact',
    ]);
    expect(routeAcceptanceItems('postgres-to-sqlite')).toEqual([
      ...mandatory,
      'shadow-report-exact',
      'power-loss-journal-durable',
      'power-loss-target-durable',
      'full-disk-refused-then-one',
      'read-only-refused-then-one',
      'journal-corruption-detected',
    ]);
    // The gate prints an engine's route lines after the shared fault lines, its storage lines last.
    expect(
      acceptanceItems('sqlite-to-postgres')
        .map((item) => item.id)
        .slice(6),
    ).toEqual([
      'airflow-one-mutation',
      'pooler-values-exact',
      'lost-commit-diverged',
      'stall-bounded',
      'clock-skew',
      'shadow-report-exact',
      'power-loss-server-durable',
      'full-disk-server-refused-then-one',
      'journal-corruption-server-detected',
    ]);
    expect(
      acceptanceItems('sqlite')
        .map((item) => item.id)
        .slice(6),
    ).toEqual([
      'airflow-one-mutation',
      'clock-skew',
      'shadow-report-exact',
      'power-loss-journal-durable',
      'power-loss-target-durable',
      'full-disk-refused-then-one',
      'read-only-refused-then-one',
      'journal-corruption-detected',
    ]);
  });
});
