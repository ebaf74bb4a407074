import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findLocalBinaries } from '../postgres/harness/env/local-binaries.ts';
import { LocalPostgresCluster } from '../postgres/harness/env/postgres-cluster.ts';
import { liveClickHouse, unverified as noClickHouse } from './fixtures/clickhouse-live.ts';
import { dpone, exampleCopy } from '../../src/cli/commands/example-workload.test-support.ts';
import { EMBEDDED_ENGINE } from '../../harness/routes/route-registry.ts';

/**
 * The ClickHouse route with a PostgreSQL source, as the README says a user may run it: the source
 * URL's scheme picks the source connector. Values arrive as PostgreSQL's own text (numeric exact).
 */
const binaries = findLocalBinaries();
const unverified = noClickHouse || (binaries.postgresBin === null && process.env.CI !== 'true');
if (binaries.postgresBin === null)
  console.warn(`UNVERIFIED postgres source into clickhouse: ${binaries.missing[0]}`);

const live = liveClickHouse('pgsrc');
let cluster: LocalPostgresCluster | undefined;

describe.skipIf(unverified)('dpone run, PostgreSQL source into ClickHouse (live CLI)', () => {
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
    const db = await live.freshDb();
    const example = exampleCopy();
    const workload = example.variant('pg-ch.yaml', (text) =>
      text
        // The example's embedded route, re-pointed: its source at PostgreSQL, its target at ClickHouse.
        .replace(`route: ${EMBEDDED_ENGINE}`, 'route: clickhouse')
        .replace(
          `url: '${EMBEDDED_ENGINE}:data/source.db'`,
          `url: '${cluster!.url('postgres')}'\n  password_env: PG_PW`,
        )
        .replace(`url: '${EMBEDDED_ENGINE}:data/target.db'`, `url: '${live.server().url(db)}'`),
    );
    const env = { PG_PW: cluster!.password };
    const first = await dpone(['run', '--workload', workload, '--json'], { cwd: example.dir, env });
    expect(first.exitCode, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ status: 'committed', rows_written: 2 });
    const second = await dpone(['run', '--workload', workload, '--json'], { cwd: example.dir, env });
    expect(JSON.parse(second.stdout)).toMatchObject({ status: 'already-complete', mutated: false });
    const rows = await live
      .server()
      .exec(`SELECT id, amount, region FROM ${db}.events ORDER BY id FORMAT TSV`);
    expect(rows.trim().split('\n')).toEqual(['1\t12.5000\teu', '9007199254740993\t0.1000\t\\N']);
  });
});
