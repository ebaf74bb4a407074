import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalPostgresCluster } from '../connectors/postgres/harness/env/postgres-cluster.ts';
import { startCluster, unverifiedLive } from '../connectors/postgres/fixtures/live-cluster.ts';
import {
  ROOT,
  dponeExample,
  exampleSecrets,
  exampleWorkload,
  psql,
  query,
  setUpExample,
} from './postgres-example.test-support.ts';

/**
 * examples/postgres/ run the way its README says, against a throw-away cluster standing in for the
 * newcomer's server: setup.sql through psql, identity, run twice, inspect, teardown.sql.
 */
const unverified = unverifiedLive('examples/postgres');

const SECRETS = exampleSecrets('example');
let cluster: LocalPostgresCluster;

const dpone = (args: readonly string[]) => dponeExample(args, ROOT, SECRETS);

describe.skipIf(unverified)('examples/postgres (live, as its README runs it)', () => {
  let workload: string;
  let dir: string;
  beforeAll(async () => {
    cluster = await startCluster();
    // The README's one edit: host and port of "your" server.
    dir = mkdtempSync(join(tmpdir(), 'dpone-pg-example-'));
    workload = exampleWorkload(cluster, dir);
  });
  afterAll(async () => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    await cluster?.[Symbol.asyncDispose]();
  });

  it('sets up, loads once, answers already-complete, inspects, and tears down', async () => {
    await setUpExample(cluster, SECRETS);
    const identity = await dpone(['identity', '--workload', workload, '--json']);
    const { operation_id: operationId } = JSON.parse(identity.stdout) as { operation_id: string };

    const first = await dpone(['run', '--workload', workload, '--json']);
    expect(first.stderr).toBe('');
    expect(JSON.parse(first.stdout)).toMatchObject({
      status: 'committed',
      rows_written: 3,
      operation_id: operationId,
    });
    const second = await dpone(['run', '--workload', workload, '--json']);
    expect(JSON.parse(second.stdout)).toMatchObject({ status: 'already-complete', mutated: false });

    const source = await query(
      cluster,
      'dpone_example_app',
      "SELECT id, day::text, amount::text, ratio::text, placed_at::text, region FROM public.orders WHERE day = '2026-07-05' ORDER BY id",
    );
    const target = await query(
      cluster,
      'dpone_example_dw',
      'SELECT id, day::text, amount::text, ratio::text, placed_at::text, region FROM dw.events ORDER BY id',
    );
    expect(target).toEqual(source);
    expect(target).toHaveLength(3);

    const inspect = await dpone([
      'recovery',
      'target-commit',
      'inspect',
      '--operation-id',
      operationId,
      '--route',
      workload,
      '--json',
    ]);
    expect(JSON.parse(inspect.stdout)).toMatchObject({
      entry: { state: 'COMPLETE' },
      fence: { status: 'committed' },
    });
    for (const output of [first, second, inspect]) expect(output.stdout + output.stderr).not.toMatch(/4711/);

    await psql(cluster, 'teardown.sql');
    expect(
      await query(cluster, 'postgres', "SELECT datname FROM pg_database WHERE datname LIKE 'dpone_example%'"),
    ).toEqual([]);
    expect(
      await query(cluster, 'postgres', "SELECT rolname FROM pg_roles WHERE rolname LIKE 'dpone\\_%'"),
    ).toEqual([]);
  });
});
