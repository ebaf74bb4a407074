import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AIRFLOW_PINS, defaultVenvDir, findAirflowVenv, PROVISION_COMMAND } from './airflow-venv.ts';

const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

async function fakeVenv(stamp: string | null): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'dpone-airflow-venv-'));
  dirs.push(dir);
  await mkdir(join(dir, 'bin'));
  await writeFile(join(dir, 'bin', 'airflow'), '');
  if (stamp !== null) await writeFile(join(dir, '.dpone-provisioned'), stamp);
  return dir;
}

describe('findAirflowVenv', () => {
  it('names the cache folder airflow-venv.sh builds: version and digest of the pin list', async () => {
    const pins = await readFile(AIRFLOW_PINS, 'utf8');
    const digest = createHash('sha256').update(pins).digest('hex').slice(0, 12);
    expect(defaultVenvDir({ HOME: '/h' })).toBe(`/h/.cache/dpone-airflow/airflow-3.3.2-py3.11-${digest}`);
    expect(defaultVenvDir({ DPONE_AIRFLOW_CACHE: '/c' })).toBe(`/c/airflow-3.3.2-py3.11-${digest}`);
    expect(pins).toMatch(/^apache-airflow-providers-cncf-kubernetes==\S+$/m);
  });

  it('reports a missing or half-built environment with the command that provisions it', async () => {
    const missing = findAirflowVenv({ DPONE_AIRFLOW_CACHE: join(tmpdir(), 'dpone-no-such-cache') });
    expect(missing).toMatchObject({ status: 'missing' });
    expect(missing.status === 'missing' && missing.reason).toContain(PROVISION_COMMAND);
    const halfBuilt = findAirflowVenv({ DPONE_AIRFLOW_VENV: await fakeVenv(null) });
    expect(halfBuilt.status).toBe('missing');
  });

  it('refuses an environment built from another pin list, accepts one built from this one', async () => {
    const stale = findAirflowVenv({ DPONE_AIRFLOW_VENV: await fakeVenv('000000000000') });
    expect(stale.status === 'missing' && stale.reason).toContain('another pin list');
    const digest = createHash('sha256')
      .update(await readFile(AIRFLOW_PINS, 'utf8'))
      .digest('hex')
      .slice(0, 12);
    const dir = await fakeVenv(digest);
    const found = findAirflowVenv({ DPONE_AIRFLOW_VENV: dir });
    expect(found).toMatchObject({
      status: 'found',
      venv: { dir, version: '3.3.2', kubernetesProvider: '10.25.0', python: join(dir, 'bin', 'python') },
    });
  });
});
