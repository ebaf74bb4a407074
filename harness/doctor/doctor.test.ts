import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dpone } from '../../src/cli/commands/example-workload.test-support.ts';
import { ENVIRONMENT_PROVIDERS } from '../env/environment-registry.ts';
import { ENGINE_SERVICES, ENGINE_USES } from '../routes/engine-services.ts';
import { EMBEDDED_ENGINE, loadRoute, routeIds } from '../routes/route-registry.ts';
import { nodeSupported } from './doctor-probes.ts';
import type { DoctorReport } from './doctor.ts';
import { USES } from './doctor.ts';

// Engine-neutral on purpose (no engine is named outside its folder): each engine's lines and
// components are asserted in its folder (connectors/<engine>/harness/engine.test.ts).
const SECRET = 'doctor-must-not-print-this-7731';
const EMBEDDED_ROUTE = `${EMBEDDED_ENGINE}-to-${EMBEDDED_ENGINE}`;
/** The entry of the server that gives doctor's external line its example URL. */
const EXTERNAL_ENTRY = Object.values(ENGINE_SERVICES).find((entry) => entry.doctor.externalExample)!;

/** The components doctor lists of its own, in their order (Node, the providers' tools, Chromium, Airflow). */
const GENERIC = ['node', 'toxiproxy', 'chromium', 'docker', 'external', 'airflow'];

describe('dpone doctor (real CLI process)', () => {
  it('reports every use and component as JSON, exit 0 when the default route can run here', async () => {
    const [urlVar, passwordVar] = EXTERNAL_ENTRY.external.requiredEnv;
    const result = await dpone(['doctor', '--json'], {
      cwd: tmpdir(),
      // An engine that cannot answer, and a password that must never be echoed.
      env: { DOCKER_HOST: 'tcp://127.0.0.1:1', [passwordVar!]: SECRET },
    });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).not.toContain(SECRET);
    const report = JSON.parse(result.stdout) as DoctorReport;
    expect(report.schema).toBe('dpone.doctor/v1');
    expect(report.default_ready).toBe(true);
    expect(report.uses[0]).toMatchObject({ route: EMBEDDED_ROUTE, provider: 'embedded', ready: true });
    const docker = report.components.find((c) => c.id === 'docker')!;
    expect(docker.present).toBe(false);
    expect(docker.detail).toContain('127.0.0.1:1');
    expect(report.uses.find((u) => u.provider === 'docker')).toMatchObject({
      ready: false,
      missing: ['docker'],
    });
    for (const c of report.components) expect(c.install).not.toBe('');
    // The external provider's line: the server whose entry gives an example URL, its variables (the
    // password set here, so only the others are missing) and Toxiproxy's. Its words:
    // connectors/<that engine>/harness/engine.test.ts.
    expect(report.components.find((c) => c.id === 'external')).toMatchObject({
      name: `your own ${EXTERNAL_ENTRY.label} + Toxiproxy`,
      present: false,
      detail: `not set: ${urlVar}, DPONE_TOXIPROXY_URL`,
      install: `export ${urlVar}=${EXTERNAL_ENTRY.doctor.externalExample} ${passwordVar}=… DPONE_TOXIPROXY_URL=http://host:8474`,
    });
    // The generic components in their order; each engine's are placed among them by rank (asserted
    // in each engine's folder), each listed once.
    const ids = report.components.map((c) => c.id);
    expect(ids.filter((id) => GENERIC.includes(id))).toEqual(GENERIC);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBeGreaterThan(GENERIC.length);
  });

  it('prints one readable table; a bad flag is exit 2', async () => {
    const plain = await dpone(['doctor'], { cwd: tmpdir(), env: { DOCKER_HOST: 'tcp://127.0.0.1:1' } });
    expect(plain.stdout).toMatch(new RegExp(`^ {2}ready {4}${EMBEDDED_ROUTE} +embedded`, 'm'));
    expect(plain.stdout).toMatch(/MISSING {2}Docker engine .*127\.0\.0\.1:1/);
    expect(plain.stdout).toMatch(/install: /);
    expect((await dpone(['doctor', '--fast'], { cwd: tmpdir() })).exitCode).toBe(2);
  });
});

describe('doctor finds the Airflow environment where the provisioning step builds it', () => {
  it('an airflow-<version>-py3.11-<digest> folder under DPONE_AIRFLOW_CACHE is found with its version', async () => {
    const cache = mkdtempSync(join(tmpdir(), 'dpone-doctor-airflow-'));
    const bin = join(cache, 'airflow-3.3.2-py3.11-0123456789ab', 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'airflow'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    writeFileSync(join(bin, 'python'), '#!/bin/sh\necho "Airflow 3.3.2"\n', { mode: 0o755 });
    const found = await dpone(['doctor', '--json'], {
      cwd: tmpdir(),
      env: { DPONE_AIRFLOW_CACHE: cache, DPONE_AIRFLOW_VENV: '' },
    });
    const airflow = (JSON.parse(found.stdout) as DoctorReport).components.find((c) => c.id === 'airflow')!;
    expect(airflow).toMatchObject({
      present: true,
      detail: `Airflow 3.3.2 (${join(cache, 'airflow-3.3.2-py3.11-0123456789ab')})`,
    });
    const empty = mkdtempSync(join(tmpdir(), 'dpone-doctor-no-airflow-'));
    const missing = await dpone(['doctor', '--json'], {
      cwd: tmpdir(),
      env: { DPONE_AIRFLOW_CACHE: empty, DPONE_AIRFLOW_VENV: '' },
    });
    const none = (JSON.parse(missing.stdout) as DoctorReport).components.find((c) => c.id === 'airflow')!;
    expect(none.present).toBe(false);
    expect(none.install).not.toBe('');
  });
});

describe('doctor assessment', () => {
  it("lists each engine's own route on its default provider, only routes the harness has, and every provider", async () => {
    for (const { engine, uses } of ENGINE_USES)
      if (uses.ownRoute && routeIds().includes(`${engine}-to-${engine}`)) {
        const route = await loadRoute(`${engine}-to-${engine}`);
        expect(USES.some((u) => u.route === route.id && u.provider === route.defaultProvider)).toBe(true);
      }
    for (const use of USES.filter((u) => u.route.includes('-to-'))) expect(routeIds()).toContain(use.route);
    for (const provider of Object.keys(ENVIRONMENT_PROVIDERS))
      expect(USES.some((u) => u.provider === provider)).toBe(true);
  });

  it('lists the own routes (the embedded one first), the composed ones, the lanes, then npm test and Airflow', () => {
    const kinds = USES.map(({ route }) => {
      const [source, target] = route.split('-to-');
      if (target === undefined) return ['npm test', 'airflow'].includes(route) ? route : 'lane';
      return source === target ? 'own' : 'composed';
    });
    expect(USES[0]!.route).toBe(EMBEDDED_ROUTE);
    expect(kinds.join(' ')).toMatch(/^(own )+(composed )+(lane )+npm test airflow$/);
    expect(USES.at(-1)).toMatchObject({ route: 'airflow', provider: 'venv', needs: ['airflow'] });
    // npm test: Node, every server its live tests start on this machine, then Chromium.
    const tests = USES.find((u) => u.route === 'npm test')!;
    expect(tests.provider).toBe('live tests');
    expect([tests.needs[0], tests.needs.at(-1)]).toEqual(['node', 'chromium']);
    expect(tests.needs).toContain('toxiproxy');
  });

  it('knows which Node versions run the sources', () => {
    expect(['22.22.0', '22.30.1', '23.0.0', '24.1.0'].map(nodeSupported)).toEqual([true, true, true, true]);
    expect(['20.20.2', '22.21.9', '18.0.0', '4.0.0'].map(nodeSupported)).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });
});
