import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { StartedEnvironment } from '../../../harness/env/environment.ts';
import type { CellEvidence } from '../../../harness/evidence/evidence-types.ts';
import { EMBEDDED_CLEAN_BOOK } from '../../../harness/faults/fixtures/clean-trace.ts';
import { planCells } from '../../../harness/plan/planner.ts';
import { loadRoute } from '../../../harness/routes/route-registry.ts';
import { parseScenario } from '../../../harness/scenario/scenario-loader.ts';
import { runCell } from '../../../harness/runner/cell-runner.ts';
import { startEmbedded } from '../../../harness/routes/fixtures/embedded-cell.ts';

/**
 * Cells of one scenario run end to end on the embedded route, for a test file: the embedded
 * environment started once in a temp folder (removed after the file), the scenario planned against
 * the recorded clean SQLite trace, and `cell(id)` running that planned cell with real workers and
 * the real checks. Call at a test file's top level (it registers the file's beforeAll/afterAll).
 */
export async function embeddedCells(
  file: string,
  scenario: string,
): Promise<(id: string) => Promise<CellEvidence>> {
  const route = await loadRoute('sqlite');
  const dir = mkdtempSync(join(tmpdir(), 'dpone-embedded-cells-'));
  let environment: StartedEnvironment;
  beforeAll(async () => {
    environment = await startEmbedded(dir);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return async (id) => {
    const cells = await planCells([{ file, scenario: parseScenario(scenario, file) }], {
      variants: route.unsafeVariants,
      ...(route.lossModes ? { lossModes: route.lossModes } : {}),
      traces: () => EMBEDDED_CLEAN_BOOK,
    });
    const planned = cells.find((candidate) => candidate.id === id);
    if (!planned) throw new Error(`no cell ${id}`);
    return runCell(planned, { route, environment, cellsDir: join(dir, 'cells'), reproduce: () => 'replay' });
  };
}
