import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decideDeploymentPolicy } from '../../src/core/deployment-policy.ts';
import { run as gate } from '../cli/certify-gate.ts';
import { capturedIo } from './fixtures/captured-io.ts';
import { acceptanceCells, sealEvidence } from './fixtures/certified-evidence.ts';
import { FIXTURE_PLAN, writeFixtureScenarios } from './fixtures/fixture-plan.ts';
import { loadRoute } from '../routes/route-registry.ts';

/** The gate on a plug-in route: the certification names the module and the version installed. */

const sqliteRoute = await loadRoute('sqlite');
const ROUTE = 'sqlite-to-example';
const MODULE = 'dpone-connector-example';
const CERTIFIED = `${MODULE}@2.3.4`;

const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

/** A project whose package.json lists a plug-in at `installed`, and evidence of a run of CERTIFIED. */
async function project(installed: string | null, certified = CERTIFIED): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'dpone-gate-plugin-'));
  dirs.push(dir);
  if (installed !== null) {
    await writeFile(
      join(dir, 'plugin.mjs'),
      `export default {
        api: 'dpone.connector/v1',
        meta: { name: '${MODULE}', version: '${installed}' },
        target: { capability: 'transactional-commit-marker', fenceLocation: () => 'x', open: async () => { throw new Error('never opened'); }, unsafeVariants: ${JSON.stringify(sqliteRoute.unsafeVariants)}, openUnsafe: async () => { throw new Error('never opened'); }, openPlain: async () => { throw new Error('never opened'); } },
        harness: { routes: [{ id: '${ROUTE}', source: 'sqlite' }], target: { prepare: async () => { throw new Error('never prepared'); } } },
      };\n`,
    );
    await writeFile(join(dir, 'package.json'), JSON.stringify({ dpone: { connectors: ['./plugin.mjs'] } }));
  }
  // The gate plans again from the scenario files the evidence names.
  await writeFixtureScenarios(dir);
  const cells = acceptanceCells().map((cell) => ({ ...cell, route: ROUTE }));
  // The fixture's recorded traces, filed under this route (the gate plans the route's cells from them).
  const traces = Object.fromEntries(
    Object.entries(FIXTURE_PLAN.traces).map(([key, book]) => [
      key.replace(/^sqlite-to-sqlite\//, `${ROUTE}/`),
      book,
    ]),
  );
  const evidence = sealEvidence(cells, {
    route: ROUTE,
    plan: { ...FIXTURE_PLAN, traces },
    environment: { ...sealEvidence([]).environment, connector_version: certified },
  });
  await writeFile(join(dir, 'evidence.json'), JSON.stringify(evidence, null, 2));
  return dir;
}

async function runGate(dir: string) {
  const io = capturedIo(dir);
  const code = await gate(['--route', ROUTE, '--evidence', 'evidence.json'], io);
  const status = (id: string) =>
    new RegExp(`^(PASS|FAIL|UNKNOWN|UNVERIFIED)\\s+${id}\\b`, 'm').exec(io.out())?.[1];
  return { code, out: io.out(), status, certification: join(dir, 'certifications', `${ROUTE}.json`) };
}

describe('certify gate on a plug-in route', () => {
  it('certifies exactly the installed <module>@<version>, and the policy enforces only that version', async () => {
    const result = await runGate(await project('2.3.4'));
    expect(result.code).toBe(0);
    expect(result.status('connector-version')).toBe('PASS');
    expect(result.out).toContain(`evidence covers connector ${CERTIFIED}, the version this runtime ships`);
    const record = JSON.parse(await readFile(result.certification, 'utf8'));
    expect(record).toMatchObject({ route: ROUTE, connector_version: CERTIFIED });

    expect(decideDeploymentPolicy([record], ROUTE, CERTIFIED).mode).toBe('enforced');
    for (const other of [`${MODULE}@2.3.5`, `${MODULE}@2.3.4-rc.1`, `${MODULE}-fork@2.3.4`]) {
      const decision = decideDeploymentPolicy([record], ROUTE, other);
      expect(decision.mode).toBe('legacy');
      expect(decision.reason).toContain(`certified for connector ${CERTIFIED}, not ${other}`);
    }
    // The record certifies its route only: another route with the same module version is not covered.
    expect(decideDeploymentPolicy([record], 'sqlite-to-other', CERTIFIED).mode).toBe('legacy');
  });

  it('fails when the installed plug-in is another version than the evidence covers, and writes nothing', async () => {
    const result = await runGate(await project('2.4.0'));
    expect(result.code).toBe(1);
    expect(result.status('connector-version')).toBe('FAIL');
    expect(result.out).toContain(
      `evidence covers connector ${CERTIFIED}, but this runtime ships ${MODULE}@2.4.0 for route ${ROUTE}`,
    );
    expect(existsSync(result.certification)).toBe(false);
  });

  it('fails when no installed plug-in declares the route', async () => {
    const result = await runGate(await project(null));
    expect(result.code).toBe(1);
    expect(result.status('connector-version')).toBe('FAIL');
    expect(result.out).toContain(`this runtime ships no connector for route ${ROUTE}`);
    expect(existsSync(result.certification)).toBe(false);
  });
});
