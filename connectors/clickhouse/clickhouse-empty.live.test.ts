import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/contracts/errors.ts';
import type { LoadStrategy } from '../../src/ports/connector.ts';
import {
  CREATE,
  EMPTY,
  fence,
  liveClickHouse,
  parkAt,
  request,
  unverified,
  writeUntilParked,
} from './fixtures/clickhouse-live.ts';

/**
 * Issue 12 row 2: an empty batch had no staging table, so nothing sealed a zombie writing one.
 * With replace-partition its DROP PARTITION deleted rows a newer holder had committed (late source
 * rows); with append it added a stale `committed` event and the fence answered `unknown` forever.
 * Now an empty batch stages an empty table like any other, and its commit record needs that table.
 */
const { freshDb, open, count, stagingTables } = liveClickHouse('empty');

describe.skipIf(unverified)('clickhouse empty batch is sealed like any other (live)', () => {
  it('an empty batch commits alone: committed with 0 rows, nothing left behind', async () => {
    const db = await freshDb();
    await using target = await open(db);
    await target.prepareFence(fence(1), CREATE);
    expect(await target.mutate(request(1, 'append', EMPTY))).toEqual({
      applied: true,
      rowsWritten: 0,
      epoch: 1,
    });
    expect(await target.queryFence('op-1')).toMatchObject({
      status: 'committed',
      epoch: 1,
      committedEpoch: 1,
      rowsWritten: 0,
    });
    expect(await stagingTables(db)).toBe(0);
  });

  const cases: [LoadStrategy, string][] = [];
  for (const strategy of ['append', 'replace-partition'] as const) {
    for (const point of [
      'target.stage:before',
      'target.stage:after',
      'target.commit:before',
      'target.commit:after',
    ]) {
      cases.push([strategy, point]);
    }
  }
  it.each(cases)(
    '%s: a zombie with an empty batch parked at %s cannot undo or shadow the rows a newer holder committed',
    async (strategy, point) => {
      const db = await freshDb();
      const park = parkAt(point);
      await using zombie = await open(db, park.faults);
      await using next = await open(db);
      const { outcome } = await writeUntilParked(zombie, park.parked, request(1, strategy, EMPTY));
      // Late source rows: the next holder reads two rows where the zombie read none.
      await next.prepareFence(fence(2), CREATE);
      expect(await next.mutate(request(2, strategy))).toEqual({ applied: true, rowsWritten: 2, epoch: 2 });
      park.release();
      const zombieEnd = await outcome;
      expect([ERROR_CODES.FENCED, ERROR_CODES.COMMIT_UNKNOWN]).toContain(zombieEnd);
      expect(await count(db, "part = 'p1'")).toBe(2);
      expect(await next.queryFence('op-1')).toMatchObject({
        status: 'committed',
        epoch: 2,
        committedEpoch: 2,
        rowsWritten: 2,
      });
      expect(await stagingTables(db)).toBe(0);
    },
  );
});
