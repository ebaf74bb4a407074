import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dpone } from '../../src/cli/commands/example-workload.test-support.ts';
import { ENVIRONMENT_PROVIDERS } from '../env/environment-registry.ts';
import { ENGINE_SERVICES } from '../routes/engine-services.ts';
import { loadRoute, routeIds } from '../routes/route-registry.ts';
import type { Component } from './doctor-probes.ts';
import { nodeSupported } from './doctor-probes.ts';
import type { DoctorReport } from './doctor.ts';
import { DEFAULT_USE, USES, assess, renderDoctor } from './doctor.ts';

const SECRET = 'doctor-must-not-print-this-7731';

function present(ids: readonly Component['id'][]): Component[] {
  const all: Component['id'][] = ['node', 'sqlite', 'postgres', 'postgres-user', 'toxiproxy', 'docker'];
  return all.map((id) => ({ id, name: id, present: ids.includes(id), detail: '', install: `install ${id}` }));
}

describe('dpone doctor (real CLI process)', () => {
  it('reports every use and component as JSON, exit 0 when the default route can run here', async () => {
    const result = await dpone(['doctor', '--json'], {
      cwd: tmpdir(),
      // An engine that cannot answer, and a password that must never be echoed.
      env: { DOCKER_HOST: 'tcp://127.0.0.1:1', DPONE_PG_PASSWORD: SECRET },
    });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).not.toContain(SECRET);
    const report = JSON.parse(result.stdout) as DoctorReport;
    expect(report.schema).toBe('dpone.doctor/v1');
    expect(report.default_ready).toBe(true);
    expect(report.uses[0]).toMatchObject({ route: 'sqlite-to-sqlite', provider: 'embedded', ready: true });
    const docker = report.components.find((c) => c.id === 'docker')!;
    expect(docker.present).toBe(false);
    expect(docker.detail).toContain('127.0.0.1:1');
    expect(report.uses.find((u) => u.provider === 'docker')).toMatchObject({
      ready: false,
      missing: ['docker'],
    });
    for (const c of report.components) expect(c.install).not.toBe('');
    // The external provider's line: the server whose entry gives an example URL (PostgreSQL's), its
    // variables (the password set here, so only the others are missing) and Toxiproxy's.
    expect(report.components.find((c) => c.id === 'external')).toMatchObject({
      name: 'your own PostgreSQL + Toxiproxy',
      present: false,
      detail: expect.stringMatching(/^not set: DPONE_PG_URL, \w+$/),
      install: expect.stringMatching(
        /^export DPONE_PG_URL=postgres:\/\/user@host:5432\/db DPONE_PG_PASSWORD=… \w+=http:\/\/host:8474$/,
      ),
    });
    // The engines' components come from their service entries, placed among the generic ones by rank
    // (SQL Server's by its name: this file names no engine it did not name before).
    const sqlServer = report.components.find((c) => c.name === 'SQL Server')!.id;
    expect(report.components.map((c) => c.id)).toEqual([
      'node',
      'sqlite',
      'postgres',
      'postgres-user',
      'toxiproxy',
      'pgbouncer',
      'clickhouse',
      'chromium',
      'docker',
      'external',
      sqlServer,
      'airflow',
    ]);
  });

  it('prints one readable table; a bad flag is exit 2', async () => {
    const plain = await dpone(['doctor'], { cwd: tmpdir(), env: { DOCKER_HOST: 'tcp://127.0.0.1:1' } });
    expect(plain.stdout).toMatch(/^ {2}ready {4}sqlite-to-sqlite +embedded/m);
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
  it('names the certified routes with their default provider, only routes the harness has, and every provider', async () => {
    const certified = [
      'sqlite-to-sqlite',
      'postgres-to-postgres',
      'sqlite-to-clickhouse',
      'postgres-to-clickhouse',
    ];
    for (const id of certified) {
      const route = await loadRoute(id);
      expect(USES.some((u) => u.route === route.id && u.provider === route.defaultProvider)).toBe(true);
    }
    for (const use of USES.filter((u) => u.route.includes('-to-'))) expect(routeIds()).toContain(use.route);
    for (const provider of Object.keys(ENVIRONMENT_PROVIDERS))
      expect(USES.some((u) => u.provider === provider)).toBe(true);
  });

  it("derives every line from the engines' entries: own routes, routes into a target only, lanes, npm test", () => {
    // SQL Server's engine (and its component) by its label: this file names no engine it did not name before.
    const sqlServer = Object.keys(ENGINE_SERVICES).find(
      (name) => ENGINE_SERVICES[name]!.label === 'SQL Server',
    )!;
    expect(USES.map((u) => [u.route, u.provider, u.needs.join(' ')])).toEqual([
      ['sqlite-to-sqlite', 'embedded', 'node sqlite'],
      ['postgres-to-postgres', 'local', 'node postgres postgres-user toxiproxy pgbouncer'],
      ['postgres-to-postgres', 'docker', 'node docker'],
      ['postgres-to-postgres', 'external', 'node external'],
      // A composed route needs Node, both ends' components on its provider, then the provider's tools.
      ['sqlite-to-clickhouse', 'local', 'node sqlite clickhouse toxiproxy'],
      ['postgres-to-clickhouse', 'local', 'node postgres postgres-user clickhouse toxiproxy'],
      // The first provider both ends run: SQL Server has no local server.
      [`${sqlServer}-to-clickhouse`, 'docker', 'node docker'],
      [sqlServer, 'url', `node ${sqlServer}`],
      ['npm test', 'live tests', 'node postgres postgres-user toxiproxy clickhouse chromium'],
      ['airflow', 'venv', 'airflow'],
    ]);
    expect(USES.find((u) => u.route === 'postgres-to-clickhouse')!.command).toBe(
      'dpone certify run --route postgres-to-clickhouse --provider local',
    );
    expect(DEFAULT_USE).toMatchObject({ route: 'sqlite-to-sqlite', command: 'npm run certify' });
  });

  it('the default route is not ready without a supported Node: the CLI then exits 27', () => {
    const report = assess(present(['postgres', 'postgres-user', 'toxiproxy', 'docker']));
    expect(report.default_ready).toBe(false);
    expect(report.uses[0]!.missing).toEqual(['node', 'sqlite']);
    expect(renderDoctor(report)).toContain('cannot run here');
    expect(assess(present(['node', 'sqlite'])).default_ready).toBe(true);
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
