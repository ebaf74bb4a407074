import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';

/**
 * A declared seal is believed only once it was seen working: the intent-conflict cell probes it
 * with `recovery target-commit inspect`, which reads the fence from the target under the seal. The
 * DuckDB plug-in's real state files are opened by that read; a copy declaring a file its connector
 * never opens (`target.conn`) leaves the target reachable, and the cell must say UNVERIFIED, not PASS.
 */
const BIN = fileURLToPath(new URL('../../../bin/dpone.js', import.meta.url));
const CONNECTOR = fileURLToPath(new URL('./duckdb-connector.ts', import.meta.url));
const SCENARIO = fileURLToPath(new URL('../../../scenarios/intent-conflict.yaml', import.meta.url));

async function storageCheck(route: string, connector: string, dir: string) {
  // The shipped scenario without its variant cells: one cell, the seal is what is tested.
  const scenario = join(dir, 'intent-conflict.yaml');
  writeFileSync(scenario, `${readFileSync(SCENARIO, 'utf8')}variants: false\n`);
  const out = join(dir, `out-${route}`);
  const args = ['certify', 'run', '--route', route, '--connector', connector, '--scenario', scenario];
  await execa(process.execPath, [BIN, ...args, '--out', out], {
    cwd: dir,
    reject: false,
    env: { CI: 'true' },
  });
  const evidence = JSON.parse(readFileSync(join(out, 'evidence.json'), 'utf8')) as {
    cells: { checks: { name: string; verdict: string; detail: string }[] }[];
  };
  expect(evidence.cells).toHaveLength(1);
  return evidence.cells[0]!.checks.find((check) => check.name === 'storage-untouched')!;
}

describe('a plug-in seal seen working before it is believed', () => {
  it('the real state files: the probe is seen, and the sealed conflicting attempt passes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dpone-seal-probe-'));
    const check = await storageCheck('sqlite-to-duckdb', CONNECTOR, dir);
    expect(check.verdict).toBe('PASS');
    expect(check.detail).toContain('the seal saw a probe that reads the fence (target.duckdb opened');
  }, 120_000);

  it('a declared file the connector never opens: UNVERIFIED, never PASS', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dpone-seal-probe-'));
    const module = join(dir, 'dummy-seal.mjs');
    writeFileSync(
      module,
      `import duck from ${JSON.stringify(CONNECTOR)};
export default {
  ...duck,
  meta: { ...duck.meta, name: 'dpone-connector-duckdb-dummy-seal' },
  harness: {
    ...duck.harness,
    routes: [{ id: 'sqlite-to-duckdb-dummy', source: 'sqlite' }],
    target: { ...duck.harness.target, stateFiles: ['target.conn'] },
  },
};
`,
    );
    const check = await storageCheck('sqlite-to-duckdb-dummy', module, dir);
    expect(check.verdict).toBe('UNVERIFIED');
    expect(check.detail).toContain('the seal saw nothing of a probe that reads');
    expect(check.detail).toContain('its fence read as committed');
  }, 120_000);
});
