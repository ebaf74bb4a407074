import { describe, expect, it } from 'vitest';
import { suiteDigest } from '../../src/cli/shipped-suites.ts';
import { defaultScenarioFiles } from '../scenario/scenario-suites.ts';
import type { Evidence } from '../evidence/evidence-types.ts';
import { scenarioDigest } from '../plan/plan-record.ts';
import { loadScenarios } from '../scenario/scenario-loader.ts';
import { checkSuite } from './suite-check.ts';
import { routeIdOf } from '../../src/contracts/route-id.ts';
import { EMBEDDED_ENGINE } from '../routes/route-registry.ts';

/** Any route with a shipped full suite: the embedded engine's. */
const ROUTE = routeIdOf(EMBEDDED_ENGINE, EMBEDDED_ENGINE);

/** Evidence that planned from `files` (only what checkSuite reads: the plan's scenarios and the suite recorded). */
async function planned(files: readonly string[], suite: unknown): Promise<Evidence> {
  const scenarios = (await loadScenarios(files)).map(({ file, scenario }) => ({
    name: scenario.name,
    file,
    sha256: scenarioDigest(scenario),
  }));
  return {
    route: ROUTE,
    environment: { suite },
    plan: { seed_override: null, scenarios, traces: {}, digest: 'x', cells: 0 },
  } as unknown as Evidence;
}

describe('the gate’s suite line', () => {
  it('passes the shipped full suite as recorded; fails a suite recorded with other files, or a part of it', async () => {
    const full = await defaultScenarioFiles(ROUTE, process.cwd(), 'full');
    const digest = suiteDigest('full').digest;
    const ok = await checkSuite(await planned(full, { name: 'full', digest }), process.cwd());
    expect(ok).toMatchObject({ ok: true });
    // Joined runs record no suite: their files alone decide.
    expect((await checkSuite(await planned(full, null), process.cwd())).ok).toBe(true);
    const changed = await checkSuite(
      await planned(full, { name: 'full', digest: `sha256:${'0'.repeat(64)}` }),
      process.cwd(),
    );
    expect(changed).toEqual({
      ok: false,
      detail: "the full suite's files changed since the run (suite digest differs)",
    });
    const part = await checkSuite(await planned(full.slice(1), { name: 'full', digest }), process.cwd());
    expect(part.ok).toBe(false);
    expect(part.detail).toMatch(
      new RegExp(`not the shipped full suite for ${ROUTE} \\(\\d+ files\\): 1 missing`),
    );
  });
});
