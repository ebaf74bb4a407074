import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { ENGINE_HARNESS_FOLDER, PACKAGE_ROOT, folderFiles } from '../code-digest.ts';
import { embeddedEngine } from '../engine-roles.ts';
import { BUILT_IN_CONNECTORS } from '../engine-table.ts';
import { exampleCopy } from './example-workload.test-support.ts';

const BIN = fileURLToPath(new URL('../../../bin/dpone.js', import.meta.url));
const HOOK = fileURLToPath(new URL('./fixtures/record-modules.mjs', import.meta.url));

/** Every module URL a real `dpone run` process resolved, recorded by a `--import` hook. */
async function modulesOfRun(
  args: readonly string[],
  cwd: string,
): Promise<{ exitCode: number; urls: string[] }> {
  const log = join(cwd, 'modules.log');
  const result = await execa(process.execPath, ['--import', HOOK, BIN, ...args], {
    cwd,
    reject: false,
    env: { DPONE_FAULT_PLAN: '', DPONE_XCOM_PATH: '', DPONE_TEST_MODULE_LOG: log },
  });
  return { exitCode: result.exitCode ?? -1, urls: readFileSync(log, 'utf8').trim().split('\n') };
}

/** The embedded engine, and the server engines: the others in the built-in engines table. */
const [EMBEDDED, EMBEDDED_PLUGIN] = embeddedEngine();
const SERVERS = Object.entries(BUILT_IN_CONNECTORS).filter(([name]) => name !== EMBEDDED);

/** A bare import's package (`@scope/name` or `name`), or null for Node's own modules. */
function packageOf(specifier: string): string | null {
  if (specifier.startsWith('node:')) return null;
  return specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');
}

/** `from 'x'` or `import('x')` of a module not given by a relative path. */
const BARE_IMPORT = /(?:from\s+|import\(\s*)['"]([^'"./][^'"]*)['"]/g;

/** The packages a folder's production files import by bare name. */
function packagesImportedBy(folder: string, skip: (file: string) => boolean = () => false): Set<string> {
  const names = new Set<string>();
  for (const file of folderFiles(folder).filter((path) => !skip(path)))
    for (const [, specifier = ''] of readFileSync(file, 'utf8').matchAll(BARE_IMPORT)) {
      const name = packageOf(specifier);
      if (name !== null) names.add(name);
    }
  return names;
}

/**
 * The server drivers: what the server engines' connectors import and neither the embedded engine's
 * folder nor src/ does, with the packages each brings of its own (its dependencies the runtime does not
 * depend on itself).
 */
function serverDrivers(): string[] {
  const shared = new Set([
    ...packagesImportedBy(EMBEDDED_PLUGIN.folder!),
    ...packagesImportedBy(join(PACKAGE_ROOT, 'src')),
  ]);
  const runtimeDependencies = Object.keys(readJson(join(PACKAGE_ROOT, 'package.json')).dependencies ?? {});
  // A server engine's connector code, not its harness/ parts (the certifier's, never the runtime's).
  const drivers = SERVERS.flatMap(([, engine]) => [
    ...packagesImportedBy(engine.folder!, (file) =>
      file.startsWith(join(engine.folder!, ENGINE_HARNESS_FOLDER)),
    ),
  ]).filter((name) => !shared.has(name));
  const brought = drivers.flatMap((name) =>
    Object.keys(readJson(join(PACKAGE_ROOT, 'node_modules', name, 'package.json')).dependencies ?? {}).filter(
      (dependency) => !runtimeDependencies.includes(dependency),
    ),
  );
  return [...new Set([...drivers, ...brought])];
}

function readJson(path: string): { dependencies?: Record<string, string> } {
  return JSON.parse(readFileSync(path, 'utf8')) as { dependencies?: Record<string, string> };
}

/** Server drivers and the server engines' code: what the embedded route must never load. */
const SERVER_MODULES = [
  ...serverDrivers().map((name) => new RegExp(`/node_modules/${name}/`)),
  // A server engine folder's code, but its engine.ts (the built-in engines table loads it: lazy
  // openers only), the workload rules it names (name checks the workload reader runs: no driver, no
  // I/O) and its unsafe-variant catalogue (data the assembled catalogue reads; it imports types only).
  new RegExp(
    `/connectors/(${SERVERS.map(([name]) => name).join('|')})/(?!engine\\.ts$|[a-z]+-workload\\.ts$|[a-z]+-names\\.ts$|[a-z]+-variant-catalogue\\.ts$)`,
  ),
];

/** The embedded engine's target and file journal, which the run must load (the hook saw the run itself). */
const EMBEDDED_TARGET = `/connectors/${EMBEDDED}/${EMBEDDED}-target.ts`;
const EMBEDDED_JOURNAL = `/connectors/${EMBEDDED}/journal/${EMBEDDED}-journal.ts`;

// A worker of the harness pays for every module it loads on each of thousands of starts, and a
// production run on the embedded route has no use for a server driver.
describe('dpone run on the embedded route: its module graph', () => {
  it("loads the embedded engine's connector and journal, and no server driver or server adapter", async () => {
    const example = exampleCopy();
    const { exitCode, urls } = await modulesOfRun(
      ['run', '--workload', example.workload, '--json'],
      example.dir,
    );
    expect(exitCode).toBe(0);
    // Each server engine brings a driver of its own (else "no server driver" would pass vacuously).
    expect(serverDrivers().length).toBeGreaterThanOrEqual(SERVERS.length);
    // The hook saw the run itself (else "nothing loaded" would pass vacuously).
    expect(urls.some((url) => url.endsWith(EMBEDDED_TARGET))).toBe(true);
    expect(urls.some((url) => url.endsWith(EMBEDDED_JOURNAL))).toBe(true);
    expect(urls.filter((url) => SERVER_MODULES.some((pattern) => pattern.test(url)))).toEqual([]);
  });

  it('reads a workload written as JSON without loading the YAML library (the harness writes its cells so)', async () => {
    const example = exampleCopy();
    const json = example.variant('workload.json.yaml', (text) => `${JSON.stringify(parse(text), null, 2)}\n`);
    const asJson = await modulesOfRun(['run', '--workload', json, '--json'], example.dir);
    expect(asJson.exitCode).toBe(0);
    expect(asJson.urls.some((url) => url.endsWith(EMBEDDED_TARGET))).toBe(true);
    expect(asJson.urls.filter((url) => url.includes('/node_modules/yaml/'))).toEqual([]);
    // The same workload as YAML does load it (so the assertion above can fail).
    const asYaml = await modulesOfRun(['identity', '--workload', example.workload], example.dir);
    expect(asYaml.exitCode).toBe(0);
    expect(asYaml.urls.some((url) => url.includes('/node_modules/yaml/'))).toBe(true);
  });
});
