import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { certifyRun } from 'dpone-cert/testing';
import { describe, expect, it } from 'vitest';

/**
 * Operator recovery on a plug-in route: `dpone recovery target-commit apply` raises the fence of
 * the plug-in's own target. It once asked for the built-in engine of the route id first, so every
 * apply on a plug-in route exited 26 (DPONE_ROUTE_NOT_CERTIFIED) and all 23 cells of
 * scenarios/embedded-recovery.yaml FAILed on sqlite-to-duckdb. Here its target-committed half runs
 * on the DuckDB route: kills at every point of apply, two racing applies, a stale version and a
 * worker completing meanwhile, each decided from the target's own rows.
 */
const CONNECTOR = fileURLToPath(new URL('./duckdb-connector.ts', import.meta.url));

describe('recovery apply on the DuckDB plug-in route', () => {
  it('settles a committed operation with one mutation in every recovery cell', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dpone-duckdb-recovery-'));
    const scenario = join(dir, 'recovery.yaml');
    writeFileSync(
      scenario,
      `name: duckdb-recovery
route: sqlite
seed: 42
workload:
  rows: 20
  strategy: append
faults:
  - kind: recovery
    from: [target-committed]
variants: false
`,
    );
    const { evidence } = await certifyRun({
      route: 'sqlite-to-duckdb',
      connector: CONNECTOR,
      scenarios: [scenario],
      dir,
    });
    const ids = evidence.cells.map((cell) => cell.id);
    expect(ids.some((id) => id.includes('/race/'))).toBe(true);
    expect(ids.some((id) => id.includes('/kill/'))).toBe(true);
    expect(evidence.cells.filter((cell) => cell.verdict !== 'PASS')).toEqual([]);
  }, 180_000);
});
