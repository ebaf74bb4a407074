import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findLocalBinaries } from './harness/env/local-binaries.ts';
import { LocalPostgresCluster } from './harness/env/postgres-cluster.ts';
import { dpone, exampleCopy } from '../../src/cli/commands/example-workload.test-support.ts';
import { EMBEDDED_ENGINE } from '../../harness/routes/route-registry.ts';
import { liveTargetWith } from '../../test/live-target.test-support.ts';

/**
 * A staging target's route with a PostgreSQL source, as the README says a user may run it: the
 * source URL's scheme picks the source connector. Values arrive as PostgreSQL's own text (numeric
 * exact, a BIGINT beyond 2^53). The target is the built-in staging target with live test support,
 * found through the engine table (test/live-target.test-support.ts).
 */
const staging = await liveTargetWith((capability) => capability.startsWith('staging'));
const binaries = findLocalBinaries();
const unverified = staging.target.unverified || (binaries.postgresBin === null && process.env.CI !== 'true');
if (binaries.postgresBin === null)
  console.warn(`UNVERIFIED postgres source into ${staging.engine}: ${binaries.missing[0]}`);

const live = staging.target.server('pgsrc');
let cluster: LocalPostgresCluster | undefined;

describe.skipIf(unverified)(`dpone run, PostgreSQL source into ${staging.engine} (live CLI)`, () => {
  beforeAll(async () => {
    cluster = await LocalPostgresCluster.start({ bin: binaries.postgresBin ?? '' });
    await cluster.query([
      'CREATE TABLE orders (id BIGINT, day TEXT, amount NUMERIC(20, 4), region TEXT)',
      "INSERT INTO orders VALUES (1, '2026-07-18', 12.5, 'eu'), (9007199254740993, '2026-07-18', 0.1, NULL), (3, '2026-07-19', 1, 'us')",
    ]);
  }, 120_000);
  afterAll(async () => {
    await cluster?.[Symbol.asyncDispose]();
  });

  it('loads the partition once, exactly', async () => {
    const target = await live.freshUrl();
    const example = exampleCopy();
    const workload = example.variant('pg-staging.yaml', (text) =>
      text
        // The example's embedded route, re-pointed: its source at PostgreSQL, its target at the staging target.
        .replace(`route: ${EMBEDDED_ENGINE}`, `route: ${staging.engine}`)
        .replace(
          `url: '${EMBEDDED_ENGINE}:data/source.db'`,
          `url: '${cluster!.url('postgres')}'\n  password_env: PG_PW`,
        )
        .replace(`url: '${EMBEDDED_ENGINE}:data/target.db'`, `url: '${target}'`),
    );
    const env = { PG_PW: cluster!.password };
    const first = await dpone(['run', '--workload', workload, '--json'], { cwd: example.dir, env });
    expect(first.exitCode, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ status: 'committed', rows_written: 2 });
    const second = await dpone(['run', '--workload', workload, '--json'], { cwd: example.dir, env });
    expect(JSON.parse(second.stdout)).toMatchObject({ status: 'already-complete', mutated: false });
    expect(await live.rows(target, 'events', ['id', 'amount', 'region'])).toEqual([
      ['1', '12.5000', 'eu'],
      ['9007199254740993', '0.1000', null],
    ]);
  });
});
