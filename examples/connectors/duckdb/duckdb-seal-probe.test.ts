import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { certifyRun, writeConnectorCopy } from 'dpone-cert/testing';
import { describe, expect, it } from 'vitest';

/**
 * A declared seal is believed only once it was seen working: the intent-conflict cell probes it
 * with `recovery target-commit inspect`, which reads the fence from the target under the seal. The
 * DuckDB plug-in's real state files are opened by that read. Broken copies must each say UNVERIFIED,
 * never PASS: one declaring a file its connector never opens (`target.conn`, alone or beside the real
 * files: the honest attempt is watched using every declared name), and one declaring only the log
 * (`target.duckdb.wal`: the probe still reads the fence from the database file left in place).
 */
const CONNECTOR = fileURLToPath(new URL('./duckdb-connector.ts', import.meta.url));
const SCENARIO = fileURLToPath(new URL('../../../scenarios/intent-conflict.yaml', import.meta.url));

async function storageCheck(route: string, connector: string, dir: string) {
  // The shipped scenario without its variant cells: one cell, the seal is what is tested.
  const scenario = join(dir, 'intent-conflict.yaml');
  writeFileSync(scenario, `${readFileSync(SCENARIO, 'utf8')}variants: false\n`);
  const { evidence } = await certifyRun({ route, connector, scenarios: [scenario], dir });
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

  /** A broken copy of the DuckDB plug-in declaring `stateFiles` of its own choosing. */
  function brokenCopy(dir: string, name: string, stateFiles: readonly string[]): string {
    return writeConnectorCopy({
      connector: CONNECTOR,
      dir,
      name,
      harness: `target: { ...base.harness.target, stateFiles: ${JSON.stringify(stateFiles)} },`,
    });
  }

  it('a declared file the connector never opens: UNVERIFIED, never PASS', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dpone-seal-probe-'));
    const module = brokenCopy(dir, 'dummy', ['target.conn']);
    const check = await storageCheck('sqlite-to-duckdb-dummy', module, dir);
    expect(check.verdict).toBe('UNVERIFIED');
    expect(check.detail).toContain(
      'the target declares target.conn as its state, which the honest attempt never opened, created or wrote',
    );
  }, 120_000);

  it('a dummy file declared beside the real ones: UNVERIFIED, naming the dummy', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dpone-seal-probe-'));
    const module = brokenCopy(dir, 'extra', ['target.duckdb', 'target.duckdb.wal', 'target.conn']);
    const check = await storageCheck('sqlite-to-duckdb-extra', module, dir);
    expect(check.verdict).toBe('UNVERIFIED');
    expect(check.detail).toContain('the target declares target.conn as its state');
    expect(check.detail).not.toContain('target.duckdb.wal as its state');
  }, 120_000);

  it('only the log declared, the database file left readable: the probe still reads the fence, UNVERIFIED', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dpone-seal-probe-'));
    const module = brokenCopy(dir, 'wal', ['target.duckdb.wal']);
    const check = await storageCheck('sqlite-to-duckdb-wal', module, dir);
    expect(check.verdict).toBe('UNVERIFIED');
    expect(check.detail).toContain("a probe under the seal still read the operation's fence as committed");
  }, 120_000);
});
