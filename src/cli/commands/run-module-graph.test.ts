import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
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

/** Server drivers and their adapters: what the embedded route must never load. */
const SERVER_MODULES = [
  /\/node_modules\/pg(-[a-z-]+)?\//,
  /\/node_modules\/mssql\//,
  /\/node_modules\/tedious\//,
  /\/node_modules\/@clickhouse\//,
  /\/src\/adapters\/(connectors|journal)\/(postgres|mssql|clickhouse)\//,
  // An engine folder's code, but its engine.ts (the built-in engines table loads it: lazy openers
  // only), the workload rules it names (name checks the workload reader runs: no driver, no I/O)
  // and its unsafe-variant catalogue (data the assembled catalogue reads; it imports types only).
  /\/connectors\/(postgres|mssql|clickhouse)\/(?!engine\.ts$|[a-z]+-workload\.ts$|[a-z]+-names\.ts$|[a-z]+-variant-catalogue\.ts$)/,
];

// A worker of the harness pays for every module it loads on each of thousands of starts, and a
// production run on the embedded route has no use for a server driver.
describe('dpone run on the embedded route: its module graph', () => {
  it('loads the SQLite connector and journal, and no server driver or server adapter', async () => {
    const example = exampleCopy();
    const { exitCode, urls } = await modulesOfRun(
      ['run', '--workload', example.workload, '--json'],
      example.dir,
    );
    expect(exitCode).toBe(0);
    // The hook saw the run itself (else "nothing loaded" would pass vacuously).
    expect(urls.some((url) => url.endsWith('/connectors/sqlite/sqlite-target.ts'))).toBe(true);
    expect(urls.some((url) => url.endsWith('/connectors/sqlite/journal/sqlite-journal.ts'))).toBe(true);
    expect(urls.filter((url) => SERVER_MODULES.some((pattern) => pattern.test(url)))).toEqual([]);
  });

  it('reads a workload written as JSON without loading the YAML library (the harness writes its cells so)', async () => {
    const example = exampleCopy();
    const json = example.variant('workload.json.yaml', (text) => `${JSON.stringify(parse(text), null, 2)}\n`);
    const asJson = await modulesOfRun(['run', '--workload', json, '--json'], example.dir);
    expect(asJson.exitCode).toBe(0);
    expect(asJson.urls.some((url) => url.endsWith('/connectors/sqlite/sqlite-target.ts'))).toBe(true);
    expect(asJson.urls.filter((url) => url.includes('/node_modules/yaml/'))).toEqual([]);
    // The same workload as YAML does load it (so the assertion above can fail).
    const asYaml = await modulesOfRun(['identity', '--workload', example.workload], example.dir);
    expect(asYaml.exitCode).toBe(0);
    expect(asYaml.urls.some((url) => url.includes('/node_modules/yaml/'))).toBe(true);
  });
});
