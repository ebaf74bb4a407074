import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pathToFileURL } from 'node:url';
import { runtimeDigest } from '../../src/cli/code-digest.ts';
import { builtInRouteCode, pluginCode } from '../../src/cli/route-code.ts';
import { run as gate } from '../cli/certify-gate.ts';
import { capturedIo } from './fixtures/captured-io.ts';
import { acceptanceCells, sealEvidence } from './fixtures/certified-evidence.ts';
import { FIXTURE_PLAN, FIXTURE_ROUTE, writeFixtureScenarios } from './fixtures/fixture-plan.ts';
import { EMBEDDED_ENGINE, loadRoute } from '../routes/route-registry.ts';

/** The gate on a plug-in route: the certification names the module and the version installed. */

/** The embedded engine's route: a plug-in route's source, and the unsafe variants the plug-in offers. */
const embeddedRoute = await loadRoute(EMBEDDED_ENGINE);
const ROUTE = `${EMBEDDED_ENGINE}-to-example`;
const MODULE = 'dpone-connector-example';

const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

/**
 * A project whose package.json lists a plug-in at version `installed`, and fixture evidence whose
 * recorded code is the plug-in's files as they were when the project was made (`stale`: other files).
 */
async function project(installed: string | null, stale = false): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'dpone-gate-plugin-'));
  dirs.push(dir);
  const plugin = (version: string) => `export default {
        api: 'dpone.connector/v1',
        meta: { name: '${MODULE}', version: '${version}' },
        target: { capability: 'transactional-commit-marker', fenceLocation: () => 'x', open: async () => { throw new Error('never opened'); }, unsafeVariants: ${JSON.stringify(embeddedRoute.unsafeVariants)}, openUnsafe: async () => { throw new Error('never opened'); }, openPlain: async () => { throw new Error('never opened'); } },
        harness: { routes: [{ id: '${ROUTE}', source: '${EMBEDDED_ENGINE}' }], target: { prepare: async () => { throw new Error('never prepared'); } } },
      };\n`;
  await writeFile(join(dir, 'package.json'), JSON.stringify({ dpone: { connectors: ['./plugin.mjs'] } }));
  await writeFile(join(dir, 'plugin.mjs'), plugin(stale ? '2.3.3' : '2.3.4'));
  const code = [
    builtInRouteCode(EMBEDDED_ENGINE)![0]!,
    pluginCode('target', MODULE, pathToFileURL(join(dir, 'plugin.mjs')).href),
  ];
  if (installed === null) {
    await rm(join(dir, 'plugin.mjs'));
    await rm(join(dir, 'package.json'));
  } else await writeFile(join(dir, 'plugin.mjs'), plugin(installed));
  // The gate plans again from the scenario files the evidence names.
  await writeFixtureScenarios(dir);
  const cells = acceptanceCells().map((cell) => ({ ...cell, route: ROUTE }));
  // The fixture's recorded traces, filed under this route (the gate plans the route's cells from them).
  const traces = Object.fromEntries(
    Object.entries(FIXTURE_PLAN.traces).map(([key, book]) => [
      key.replace(`${FIXTURE_ROUTE}/`, `${ROUTE}/`),
      book,
    ]),
  );
  const evidence = sealEvidence(cells, {
    route: ROUTE,
    plan: { ...FIXTURE_PLAN, traces },
    environment: {
      ...sealEvidence([]).environment,
      connector_version: `${MODULE}@2.3.4`,
      code: { connectors: code, runtime: runtimeDigest().digest, harness: 'x' },
    },
  });
  await writeFile(join(dir, 'evidence.json'), JSON.stringify(evidence, null, 2));
  return dir;
}

async function runGate(dir: string) {
  const io = capturedIo(dir);
  const code = await gate(['--route', ROUTE, '--evidence', 'evidence.json'], io);
  const status = (id: string) =>
    new RegExp(`^(PASS|FAIL|UNKNOWN|UNVERIFIED)\\s+${id}\\b`, 'm').exec(io.out())?.[1];
  return { code, out: io.out(), status, certification: join(dir, 'certification.review.intoto.json') };
}

describe('certify gate on a plug-in route', () => {
  it('binds the plug-in by the digest of its files as installed, not by its version string', async () => {
    const result = await runGate(await project('2.3.4'));
    expect(result.status('code-digests')).toBe('PASS');
    expect(result.out).toMatch(/code-digests .*target dpone-connector-example [0-9a-f]{12}…/);
    // Fixture evidence is never certifiable (not the shipped suite): nothing is written.
    expect(result.code).toBe(1);
    expect(existsSync(result.certification)).toBe(false);
  });

  it('fails when the installed plug-in’s files differ from those that ran, whatever its version says', async () => {
    const result = await runGate(await project('2.3.4', true));
    expect(result.status('code-digests')).toBe('FAIL');
    expect(result.out).toMatch(
      /target connector dpone-connector-example: the evidence ran [0-9a-f]{12}…, this runtime has [0-9a-f]{12}…/,
    );
    const changed = await runGate(await project('2.4.0'));
    expect(changed.status('code-digests')).toBe('FAIL');
  });

  it('fails when no installed plug-in declares the route', async () => {
    const result = await runGate(await project(null));
    expect(result.code).toBe(1);
    expect(result.status('code-digests')).toBe('FAIL');
    expect(result.out).toContain(`this runtime has no connectors for route ${ROUTE}`);
    expect(existsSync(result.certification)).toBe(false);
  });
});
