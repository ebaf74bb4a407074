import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { certifyRun, writeConnectorCopy } from 'dpone-cert/testing';
import { describe, expect, it } from 'vitest';

/**
 * Harness trouble is never the connector's fault: a copy of the DuckDB plug-in whose harness part
 * cannot prepare a cell (the harness's step, before any connector ran) leaves the cell UNKNOWN with
 * the step named, never FAIL.
 */
const CONNECTOR = fileURLToPath(new URL('./duckdb-connector.ts', import.meta.url));
const SCENARIO = fileURLToPath(new URL('../../../scenarios/intent-conflict.yaml', import.meta.url));

describe('a plug-in cell whose harness step failed before the connector ran', () => {
  it('is UNKNOWN naming the step, never FAIL', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dpone-harness-trouble-'));
    const module = writeConnectorCopy({
      connector: CONNECTOR,
      dir,
      name: 'unprepared',
      harness: `target: { ...base.harness.target, prepare: async () => { throw new Error('the test server is down'); } },`,
    });
    const scenario = join(dir, 'intent-conflict.yaml');
    writeFileSync(scenario, `${readFileSync(SCENARIO, 'utf8')}variants: false\n`);
    const { evidence } = await certifyRun({
      route: 'sqlite-to-duckdb-unprepared',
      connector: module,
      scenarios: [scenario],
      dir,
    });
    expect(evidence.cells).toHaveLength(1);
    const [cell] = evidence.cells;
    expect(cell!.verdict).toBe('UNKNOWN');
    expect(cell!.checks.map((check) => check.verdict)).not.toContain('FAIL');
    expect(cell!.checks.find((check) => check.name === 'harness')?.detail).toBe(
      'the harness could not run the cell: preparing the cell (route sqlite-to-duckdb-unprepared: source, target and journal) failed (Error (details withheld))',
    );
  }, 120_000);
});
