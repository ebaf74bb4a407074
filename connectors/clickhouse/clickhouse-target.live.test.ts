import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/contracts/errors.ts';
import { parseClickHouseUrl, stagingTableName } from './clickhouse-config.ts';
import { openClickHouseSql } from './clickhouse-session.ts';
import { ClickHouseSource } from './clickhouse-source.ts';
import { createStaging } from './clickhouse-staging.ts';
import { ClickHouseTarget } from './clickhouse-target.ts';
import { describeFenceConformance } from '../../testing/fence-conformance.ts';
import { collectRows } from '../../src/ports/row-stream.ts';
import {
  BATCH,
  COLUMNS,
  CREATE,
  INTENT,
  fence,
  liveClickHouse,
  parkAt,
  request,
  unverified,
  writeUntilParked,
} from './fixtures/clickhouse-live.ts';

const live = liveClickHouse('conn');
const { freshDb, open, count, stagingTables } = live;

describe.skipIf(unverified)('clickhouse target and source (live, 18.16 or newer)', () => {
  it('append writes once, proves the generation, and a second mutate under the same epoch writes nothing', async () => {
    const db = await freshDb();
    await using target = await open(db);
    expect(await target.queryFence('op-1')).toMatchObject({ status: 'unknown', epoch: null });
    await target.prepareFence(fence(1), CREATE);
    expect(await target.mutate(request(1))).toEqual({ applied: true, rowsWritten: 2, epoch: 1 });
    expect(await target.queryFence('op-1')).toMatchObject({
      status: 'committed',
      committedEpoch: 1,
      rowsWritten: 2,
      intentDigest: INTENT,
    });
    expect(await target.mutate(request(1))).toEqual({ applied: false, rowsWritten: 2, epoch: 1 });
    expect(await count(db)).toBe(2);
    expect(await count(db, "_dpone_op = 'op-1' AND _dpone_epoch = 1")).toBe(2);
    expect(await stagingTables(db)).toBe(0);
    await using source = await ClickHouseSource.open({
      url: live.server().url(db),
      table: 'events',
      columns: COLUMNS,
    });
    expect(await collectRows(await source.read({ partitionColumn: 'part', partitionValue: 'p1' }))).toEqual(
      BATCH,
    );
  });

  it('replace-partition swaps the partition once and keeps other partitions', async () => {
    const db = await freshDb();
    await using target = await open(db);
    await live
      .server()
      .exec(`INSERT INTO ${db}.events VALUES ('9','p1','old','legacy',0),('8','p2','keep','legacy',0)`);
    await target.prepareFence(fence(3), CREATE);
    await target.mutate(request(3, 'replace-partition'));
    await target.mutate(request(3, 'replace-partition'));
    expect(await count(db, "part = 'p1'")).toBe(2);
    expect(await count(db, "part = 'p2'")).toBe(1);
    expect(await target.queryFence('op-1')).toMatchObject({
      status: 'committed',
      committedEpoch: 3,
      rowsWritten: 2,
    });
  });

  it('source rows repeating a sort key all land (a plain MergeTree keeps them; issue 12 row 3)', async () => {
    const db = await freshDb();
    await using target = await open(db);
    await target.prepareFence(fence(1), CREATE);
    const twice = [...BATCH, ['1', 'p1', 'again']];
    expect(await target.mutate(request(1, 'append', twice))).toEqual({
      applied: true,
      rowsWritten: 3,
      epoch: 1,
    });
    expect(await count(db, "id = '1'")).toBe(2);
    expect(await target.queryFence('op-1')).toMatchObject({ status: 'committed', rowsWritten: 3 });
  });

  it('a stale epoch is not installed by prepare and is refused at mutate, writing nothing', async () => {
    const db = await freshDb();
    await using target = await open(db);
    await target.prepareFence(fence(2), CREATE);
    expect(await target.prepareFence(fence(1), CREATE)).toMatchObject({ installed: false, epoch: 2 });
    await expect(target.mutate(request(1))).rejects.toMatchObject({ code: ERROR_CODES.FENCED });
    expect(await count(db)).toBe(0);
    expect(await target.queryFence('op-1')).toMatchObject({ status: 'not-committed', epoch: 2 });
  });

  it('zombie parked after staging, before the swap: unknown, then sealed by the new holder, then it writes nothing', async () => {
    const db = await freshDb();
    const park = parkAt('target.commit:before');
    await using zombie = await open(db, park.faults);
    await using next = await open(db);
    const { outcome } = await writeUntilParked(zombie, park.parked);
    // Staging written, not attached: a read-only query cannot rule out the swap still landing.
    expect(await next.queryFence('op-1')).toMatchObject({ status: 'unknown' });
    await next.prepareFence(fence(2), CREATE);
    expect(await next.queryFence('op-1')).toMatchObject({ status: 'not-committed', epoch: 2 });
    park.release();
    expect(await outcome).toBe(ERROR_CODES.FENCED);
    expect(await count(db)).toBe(0);
    await next.mutate(request(2));
    expect(await count(db)).toBe(2);
    expect(await next.queryFence('op-1')).toMatchObject({ status: 'committed', committedEpoch: 2 });
  });

  it('zombie parked after its epoch check, before staging: FENCED, nothing written; the sealed name cannot be staged into', async () => {
    const db = await freshDb();
    const park = parkAt('target.stage:before');
    await using zombie = await open(db, park.faults);
    await using next = await open(db);
    const { outcome } = await writeUntilParked(zombie, park.parked);
    await next.prepareFence(fence(2), CREATE);
    park.release();
    expect(await outcome).toBe(ERROR_CODES.FENCED);
    expect(await count(db)).toBe(0);
    // The guard that does not depend on the zombie re-reading the fence: its name is a tombstone.
    const sql = await openClickHouseSql(parseClickHouseUrl(live.server().url(db), undefined, 'test'));
    expect(await createStaging(sql, db, `${db}.events`, 'op-1', 1)).toBe(false);
    await expect(
      sql.insert(`${db}.${stagingTableName('op-1', 1)}`, [{ id: '1', part: 'p1', v: 'a' }]),
    ).rejects.toBeTruthy();
    await sql.close();
  });

  it('killed after the swap, before the fence record: the target rows prove committed; the next holder writes nothing', async () => {
    const db = await freshDb();
    const park = parkAt('target.commit:after');
    await using dead = await open(db, park.faults);
    await using next = await open(db);
    await writeUntilParked(dead, park.parked);
    expect(await next.queryFence('op-1')).toMatchObject({
      status: 'committed',
      epoch: 1,
      committedEpoch: 1,
      rowsWritten: 2,
    });
    await next.prepareFence(fence(2), CREATE);
    expect(await next.mutate(request(2))).toEqual({ applied: false, rowsWritten: 2, epoch: 1 });
    expect(await count(db)).toBe(2);
    expect(await next.queryFence('op-1')).toMatchObject({ status: 'committed', epoch: 2, committedEpoch: 1 });
    park.release();
  });

  it('four holders racing with epochs 1..4: the target ends with exactly one generation', async () => {
    const db = await freshDb();
    const targets = await Promise.all([1, 2, 3, 4].map(() => open(db)));
    const outcomes = await Promise.all(
      targets.map(async (target, i) => {
        try {
          await target.prepareFence(fence(i + 1), CREATE);
          return (await target.mutate(request(i + 1))).epoch;
        } catch (error) {
          return (error as { code?: string }).code;
        }
      }),
    );
    const answer = await targets[3]!.queryFence('op-1');
    await Promise.all(targets.map((t) => t.close()));
    // A loser is FENCED, or COMMIT_UNKNOWN when the seal hit it mid-write (the executor then asks the fence).
    const losers = new Set<unknown>([ERROR_CODES.FENCED, ERROR_CODES.COMMIT_UNKNOWN]);
    // Listed, so a failure shows which outcome was unexpected.
    expect(outcomes.filter((o) => typeof o !== 'number' && !losers.has(o))).toEqual([]);
    expect(await count(db)).toBe(2);
    expect(answer).toMatchObject({ status: 'committed', rowsWritten: 2 });
    expect(await count(db, `_dpone_epoch = ${answer.committedEpoch}`)).toBe(2);
  });

  describeFenceConformance('clickhouse (staging-swap generation, same port contract)', async (options) => {
    const db = await freshDb();
    const target = await open(db, options?.faults);
    return { target, rows: () => count(db), [Symbol.asyncDispose]: () => target.close() };
  });

  it('a dead server is FENCE_UNAVAILABLE without URL or password in the message', async () => {
    const error = await ClickHouseTarget.open({
      url: 'clickhouse://dpone@127.0.0.1:1/x?request_timeout_ms=500',
      password: 'sekrit-4711',
      table: 't',
      columns: COLUMNS,
      naturalKey: ['id'],
      partitionColumn: 'part',
    }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: ERROR_CODES.FENCE_UNAVAILABLE });
    expect(JSON.stringify(error) + (error as Error).message).not.toMatch(/sekrit|dpone@|127\.0\.0\.1/);
  });
});
