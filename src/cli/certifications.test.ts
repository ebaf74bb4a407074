import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CERTIFICATION_SCHEMA } from '../core/deployment-policy.ts';
import {
  CERTIFICATIONS_DIR_ENV,
  deploymentPolicyFor,
  readCertifications,
  routeConnectorVersion,
} from './certifications.ts';

const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

async function workdir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'dpone-certs-'));
  dirs.push(dir);
  return dir;
}

const certification = {
  schema: CERTIFICATION_SCHEMA,
  route: 'sqlite',
  connector_version: routeConnectorVersion('sqlite'),
  runtime_version: '0.1.0',
  evidence_digest: `sha256:${'e'.repeat(64)}`,
  evidence_run_id: 'run-1',
  seed: 42,
  certified_at: '2026-11-30T01:00:00.000Z',
  acceptance: [{ item: 'kill-every-transition', status: 'PASS' }],
};

describe('certifications reader', () => {
  it('reads certifications/*.json beside the cwd and enforces the certified route', async () => {
    const cwd = await workdir();
    await mkdir(join(cwd, 'certifications'));
    await writeFile(join(cwd, 'certifications', 'sqlite.json'), JSON.stringify(certification));
    await writeFile(join(cwd, 'certifications', 'broken.json'), '{ not json');
    await writeFile(join(cwd, 'certifications', 'notes.txt'), 'ignored');
    expect(await readCertifications(join(cwd, 'certifications'))).toHaveLength(1);
    expect((await deploymentPolicyFor('sqlite', cwd, {})).mode).toBe('enforced');
    expect((await deploymentPolicyFor('postgres', cwd, {})).mode).toBe('legacy');
  });

  it('treats a missing directory as no certification, and honours the directory override', async () => {
    const cwd = await workdir();
    expect((await deploymentPolicyFor('sqlite', cwd, {})).mode).toBe('legacy');
    await mkdir(join(cwd, 'approved'));
    await writeFile(join(cwd, 'approved', 'sqlite.json'), JSON.stringify(certification));
    expect((await deploymentPolicyFor('sqlite', cwd, { [CERTIFICATIONS_DIR_ENV]: 'approved' })).mode).toBe(
      'enforced',
    );
  });
});

describe('composed routes and their versions', () => {
  it('a route’s version names both connectors, and an alias is its full id', () => {
    expect(routeConnectorVersion('sqlite')).toBe(routeConnectorVersion('sqlite-to-sqlite'));
    expect(routeConnectorVersion('postgres-to-clickhouse')).toBe(
      'postgres-source/1+clickhouse-staging-swap-generation/1',
    );
    expect(routeConnectorVersion('sqlite-to-acme')).toBeNull();
    expect(routeConnectorVersion('no-route')).toBeNull();
  });

  it('a certification covers exactly the combination it names', async () => {
    const cwd = await workdir();
    await mkdir(join(cwd, 'certifications'));
    const record = {
      ...certification,
      route: 'sqlite-to-clickhouse',
      connector_version: routeConnectorVersion('sqlite-to-clickhouse'),
    };
    await writeFile(join(cwd, 'certifications', 'sqlite-to-clickhouse.json'), JSON.stringify(record));
    expect((await deploymentPolicyFor('sqlite-to-clickhouse', cwd, {})).mode).toBe('enforced');
    // Same target, another source: not certified.
    const other = await deploymentPolicyFor('postgres-to-clickhouse', cwd, {});
    expect(other.mode).toBe('legacy');
    expect(other.reason).toContain('postgres-to-clickhouse has no valid certification');
    // A record naming another version of the pair certifies nothing.
    await writeFile(
      join(cwd, 'certifications', 'sqlite-to-clickhouse.json'),
      JSON.stringify({
        ...record,
        connector_version: 'sqlite-source/1+clickhouse-staging-swap-generation/0',
      }),
    );
    expect((await deploymentPolicyFor('sqlite-to-clickhouse', cwd, {})).mode).toBe('legacy');
  });
});
