import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalPostgresCluster } from '../connectors/postgres/harness/env/postgres-cluster.ts';
import { startCluster, unverifiedLive } from '../connectors/postgres/fixtures/live-cluster.ts';
import {
  dponeExample,
  exampleSecrets,
  exampleWorkload,
  query as queryOn,
  setUpExample,
} from './postgres-example.test-support.ts';

/**
 * The rollout modes on a real PostgreSQL target (examples/postgres on a throw-away cluster, its
 * strategy made `append` so a second write shows in the rows): legacy writes without touching the
 * fence; shadow writes the same and its report counts the retried operation that the
 * target holds twice.
 */
const unverified = unverifiedLive('rollout on PostgreSQL');

const SECRETS = exampleSecrets('rollout');
let cluster: LocalPostgresCluster;
let dir: string;
let workload: string;

const dpone = (args: readonly string[]) => dponeExample(args, dir, SECRETS);

/** The rows `text` returns on the example's warehouse. */
const query = (text: string) => queryOn(cluster, 'dpone_example_dw', text);

describe.skipIf(unverified)('rollout modes on a PostgreSQL target (live)', () => {
  beforeAll(async () => {
    cluster = await startCluster();
    await setUpExample(cluster, SECRETS);
    dir = mkdtempSync(join(tmpdir(), 'dpone-pg-rollout-'));
    workload = exampleWorkload(cluster, dir, (text) =>
      text
        .replace('normalized_load_strategy: replace-partition', 'normalized_load_strategy: append')
        .replace(/^journal: .*$/m, "journal: 'sqlite:state/journal.db'"),
    );
  });
  afterAll(async () => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    await cluster?.[Symbol.asyncDispose]();
  });

  it('legacy writes without touching the fence; shadow reports a retry refused by the key as no duplicate, and one the target took as one', async () => {
    writeFileSync(join(dir, 'dpone-deployment.yaml'), 'deployment: pg-test\ndefault: legacy\n');
    const legacy = await dpone(['run', '--workload', workload, '--json']);
    expect(legacy.exitCode, legacy.stderr).toBe(0);
    expect(JSON.parse(legacy.stdout)).toMatchObject({ status: 'written', rows_written: 3 });
    // setup.sql created the fence table for the enforced path: legacy leaves it untouched.
    expect(await query('SELECT COUNT(*)::int AS n FROM dw._dpone_fence')).toEqual([{ n: 0 }]);
    await query('DELETE FROM dw.events');

    writeFileSync(join(dir, 'dpone-deployment.yaml'), 'deployment: pg-test\nroutes:\n  postgres: shadow\n');
    const shadow = () => dpone(['run', '--workload', workload, '--json']);
    const first = await shadow();
    expect(first.exitCode, first.stderr).toBe(0);
    // The example's target has a primary key: the retried append is refused by the target itself
    // (33, as in legacy), and the shadow record says it failed: no duplicate.
    const refused = await shadow();
    expect(refused.exitCode).toBe(33);
    expect(
      JSON.parse((await dpone(['shadow', 'report', '--workload', workload, '--json'])).stdout).totals,
    ).toMatchObject({ attempts: 2, duplicate_operations: 0 });
    // A warehouse table without a key takes the retry: the duplicate is in the rows and the report.
    await query(
      "DO $$ DECLARE c text; BEGIN FOR c IN SELECT conname FROM pg_constraint WHERE conrelid = 'dw.events'::regclass AND contype IN ('p', 'u') LOOP EXECUTE format('ALTER TABLE dw.events DROP CONSTRAINT %I', c); END LOOP; END $$",
    );
    const retried = await shadow();
    expect(retried.exitCode, retried.stderr).toBe(0);
    for (const output of [first, refused, retried]) expect(output.stdout + output.stderr).not.toMatch(/4711/);
    const rows = (await query(
      'SELECT COUNT(*)::int AS n, COUNT(DISTINCT id)::int AS ids FROM dw.events',
    )) as {
      n: number;
      ids: number;
    }[];
    expect(rows).toEqual([{ n: 6, ids: 3 }]);
    const report = await dpone(['shadow', 'report', '--workload', workload, '--json']);
    expect(report.exitCode, report.stderr).toBe(0);
    const measured = JSON.parse(report.stdout) as { totals: Record<string, number> };
    expect(measured.totals).toMatchObject({
      operations: 1,
      attempts: 3,
      duplicate_operations: 1,
      duplicate_writes: 1,
    });
    // The target's own rows say the same: each natural key written twice, one extra write.
    expect(rows[0]!.n / rows[0]!.ids - 1).toBe(measured.totals.duplicate_writes);
  });

  it('shadow records in the PostgreSQL journal; an unreachable journal server never fails the write', async () => {
    await query('DELETE FROM dw.events');
    const onServer = join(dir, 'server-journal.yaml');
    writeFileSync(
      onServer,
      readFileSync(workload, 'utf8')
        .replace(
          "journal: 'sqlite:state/journal.db'",
          `journal: 'postgres://dpone_journal@${cluster.host}:${cluster.port}/dpone_example_ops'`,
        )
        .replace('workload_id: orders_to_events', 'workload_id: orders_on_server'),
    );
    writeFileSync(join(dir, 'dpone-deployment.yaml'), 'deployment: pg-test\ndefault: shadow\n');
    for (const _ of [1, 2]) {
      const result = await dpone(['run', '--workload', onServer, '--json']);
      expect(result.exitCode, result.stderr).toBe(0);
      expect(result.stderr).toBe('');
    }
    const report = await dpone(['shadow', 'report', '--workload', onServer, '--json']);
    expect(report.exitCode, report.stderr).toBe(0);
    const measured = JSON.parse(report.stdout) as { journal: string; totals: Record<string, number> };
    expect(measured.journal).toMatch(/^postgres:\/\/.*\/dpone_example_ops$/);
    expect(measured.totals).toMatchObject({ operations: 1, duplicate_writes: 1 });
    expect(await query('SELECT COUNT(*)::int AS n FROM dw.events')).toEqual([{ n: 6 }]);

    const unreachable = await dpone([
      'run',
      '--workload',
      onServer,
      '--json',
      '--journal',
      'postgres://dpone_journal@127.0.0.1:1/dpone_example_ops',
    ]);
    expect(unreachable.exitCode, unreachable.stderr).toBe(0);
    expect(unreachable.stderr).toMatch(
      /shadow journal \(postgres:\/\/127\.0\.0\.1:1\/dpone_example_ops\) cannot be opened: the write goes on unrecorded/,
    );
    expect(unreachable.stdout + unreachable.stderr).not.toMatch(/4711/);
    expect(await query('SELECT COUNT(*)::int AS n FROM dw.events')).toEqual([{ n: 9 }]);
  });
});
