import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { certifyRun, writeConnectorCopy } from 'dpone-cert/testing';
import { describe, expect, it } from 'vitest';

/**
 * `timezone-shifted` (instants written without their zone) is caught on a plug-in route: the
 * plug-in cells carry zoned instants (the `at` column: +05:30, -08:00, DST edges, Z), so row parity
 * shows the shift. A copy of the DuckDB plug-in offering only that variant is certified on one
 * scenario: the variant's cell must FAIL on parity and the sensitivity record say caught.
 */
const CONNECTOR = fileURLToPath(new URL('./duckdb-connector.ts', import.meta.url));
const SCENARIO = fileURLToPath(new URL('../../../scenarios/intent-conflict.yaml', import.meta.url));

describe('timezone-shifted on the DuckDB plug-in route', () => {
  it('is offered and caught by row parity on the zoned instants', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dpone-duckdb-zones-'));
    const module = writeConnectorCopy({
      connector: CONNECTOR,
      dir,
      name: 'zones',
      plugin: `target: { ...base.target, unsafeVariants: ['timezone-shifted'] },`,
    });
    const { evidence } = await certifyRun({
      route: 'sqlite-to-duckdb-zones',
      connector: module,
      scenarios: [SCENARIO],
      dir,
    });
    expect(evidence.cells.find((cell) => cell.variant === null)?.verdict).toBe('PASS');
    const shifted = evidence.cells.filter((cell) => cell.variant === 'timezone-shifted');
    expect(shifted).toHaveLength(1);
    expect(shifted[0]!.checks.find((check) => check.name === 'parity')?.verdict).toBe('FAIL');
    expect(evidence.sensitivity.find((record) => record.variant === 'timezone-shifted')).toMatchObject({
      caught: true,
    });
  }, 120_000);
});
