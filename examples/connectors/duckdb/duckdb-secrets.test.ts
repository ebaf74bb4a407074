import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { certifyRun, writeConnectorCopy } from 'dpone-cert/testing';
import { describe, expect, it } from 'vitest';

/**
 * Secrets reach every process the harness starts (issue 34 item 3): a plug-in's prepared target
 * names its password's variable (`endpoint.password_env`) and gives the value in `env`. A copy of
 * the DuckDB plug-in whose target refuses to open without that password certifies only if every
 * worker, settle and recovery run got it; the value never appears in the workload, the evidence or
 * a report. A prepared target naming a variable its env does not set is refused with the reason.
 */
const CONNECTOR = fileURLToPath(new URL('./duckdb-connector.ts', import.meta.url));
const SECRET = `duck-secret-${process.pid}-7f3a`;

function plugin(dir: string, env: string): string {
  return writeConnectorCopy({
    connector: CONNECTOR,
    dir,
    name: 'secret',
    preamble: `const open = (name) => async (endpoint, context) => {
  if (endpoint.password !== ${JSON.stringify(SECRET)}) throw new Error('no password: the target refuses to open');
  return base.target[name](endpoint, context);
};`,
    plugin: `target: { ...base.target, open: open('open'), openUnsafe: open('openUnsafe'), openPlain: open('openPlain') },`,
    harness: `target: {
      ...base.harness.target,
      prepare: async (cellDir, table) => {
        const prepared = await base.harness.target.prepare(cellDir, table);
        return { ...prepared, endpoint: { ...prepared.endpoint, password_env: 'DUCK_TEST_PASSWORD' }, env: ${env} };
      },
    },`,
  });
}

async function certify(dir: string, module: string) {
  const scenario = join(dir, 'crash.yaml');
  writeFileSync(
    scenario,
    'name: crash\nseed: 42\nworkload:\n  rows: 5\nfaults:\n  - kind: crash\n    depth: 1\n    random: 0\nvariants: false\n',
  );
  return certifyRun({ route: 'sqlite-to-duckdb-secret', connector: module, scenarios: [scenario], dir });
}

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

describe('a plug-in’s secrets reach every process of the cell', () => {
  it('a target that needs its password certifies, and the password is nowhere in the output', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dpone-secrets-'));
    const { evidence, out, stdout, stderr } = await certify(
      dir,
      plugin(dir, `{ DUCK_TEST_PASSWORD: ${JSON.stringify(SECRET)} }`),
    );
    expect(evidence.cells.length).toBeGreaterThan(0);
    expect(evidence.cells.map((cell) => cell.verdict)).toEqual(evidence.cells.map(() => 'PASS'));
    // Killed first attempts and their recoveries: more than one process opened the target.
    expect(evidence.cells.some((cell) => cell.attempts.length >= 2)).toBe(true);
    for (const file of files(out)) expect(readFileSync(file, 'utf8'), file).not.toContain(SECRET);
    expect(`${stdout}${stderr}`).not.toContain(SECRET);
  }, 120_000);

  it('without the password in env the cells fail, and a variable env does not set is refused', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dpone-secrets-'));
    const { exitCode, stderr } = await certify(dir, plugin(dir, '{}'));
    expect(exitCode).not.toBe(0);
    expect(stderr).toContain(
      'its prepared target names password_env DUCK_TEST_PASSWORD, which its env does not set',
    );
  }, 120_000);
});
