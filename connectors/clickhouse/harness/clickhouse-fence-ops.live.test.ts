import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FENCE_TABLE_DDL } from '../clickhouse-fence.ts';
import { ClickHouseServer, findClickHouseServer } from './env/clickhouse-server.ts';
import { clickhouseFenceOperations } from './clickhouse-fence-ops.ts';

const binary = findClickHouseServer();
const unverified = binary === null && process.env.CI !== 'true';
let server: ClickHouseServer;
let n = 0;

/** A database holding a target table with generation tags and a fence log, written by hand. */
async function cell(events: readonly string[], taggedEpoch: number | null) {
  const db = `fence_ops_${process.pid}_${++n}`;
  await server.exec(`CREATE DATABASE ${db}`);
  await server.exec(
    `CREATE TABLE ${db}.events (id Int64, _dpone_op String, _dpone_epoch UInt64) ENGINE = MergeTree ORDER BY id`,
  );
  await server.exec(FENCE_TABLE_DDL.replace('_dpone_fence', `${db}._dpone_fence`));
  for (const event of events)
    await server.exec(
      `INSERT INTO ${db}._dpone_fence (operation_id, epoch, kind, rows, at_ms) VALUES ('op-1', 1, '${event}', 2, 0)`,
    );
  if (taggedEpoch !== null)
    await server.exec(
      `INSERT INTO ${db}.events VALUES (1, 'op-1', ${taggedEpoch}), (2, 'op-1', ${taggedEpoch})`,
    );
  const ops = clickhouseFenceOperations(() => ({ endpoint: server.admin, database: db, table: 'events' }));
  return { db, ops };
}

const statuses = async (ops: ReturnType<typeof clickhouseFenceOperations>) =>
  (await ops.read('op-1')).locations.map((l) => `${l.where}:${l.table ? (l.status ?? 'none') : 'no table'}`);

/**
 * The harness's own reading of a ClickHouse fence (fence-agreement decides loss cells on it): the
 * target's tags prove a commit together with the log that staged them, wherever that log went.
 */
describe.skipIf(unverified)('clickhouse fence operations: what each fence log claims (live)', () => {
  beforeAll(async () => {
    server = await ClickHouseServer.start({ binary: binary ?? '' });
  }, 40_000);
  afterAll(async () => {
    await server?.[Symbol.asyncDispose]();
  });

  it('tags of a staged epoch are a commit of the log that staged them, also once it was renamed away', async () => {
    const { ops } = await cell(['epoch', 'staged'], 1);
    expect(await statuses(ops)).toEqual(['_dpone_fence:committed', '_dpone_fence_lost:no table']);
    await ops.rename!();
    expect(await statuses(ops)).toEqual(['_dpone_fence:no table', '_dpone_fence_lost:committed']);
  });

  it('a log with no event of the operation (recreated empty after a loss) claims nothing, tags or not', async () => {
    const { db, ops } = await cell(['epoch', 'staged', 'committed'], 1);
    await ops.rename!();
    await server.exec(FENCE_TABLE_DDL.replace('_dpone_fence', `${db}._dpone_fence`));
    expect(await statuses(ops)).toEqual(['_dpone_fence:none', '_dpone_fence_lost:committed']);
  });

  it('tags of an epoch the log never staged, or no tags at all, leave the log prepared', async () => {
    expect(await statuses((await cell(['epoch', 'staged'], 2)).ops)).toEqual([
      '_dpone_fence:prepared',
      '_dpone_fence_lost:no table',
    ]);
    expect(await statuses((await cell(['epoch', 'staged'], null)).ops)).toEqual([
      '_dpone_fence:prepared',
      '_dpone_fence_lost:no table',
    ]);
  });
});
