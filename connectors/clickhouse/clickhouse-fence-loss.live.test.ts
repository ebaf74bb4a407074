import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/contracts/errors.ts';
import { CREATE, fence, liveClickHouse, request, unverified } from './fixtures/clickhouse-live.ts';

const live = liveClickHouse('loss');
const { freshDb, open, count } = live;

const NO_CREATE = { create: false } as const;

async function fenceTables(db: string): Promise<string[]> {
  const out = await live
    .server()
    .exec(
      `SELECT name FROM system.tables WHERE database = '${db}' AND name LIKE '_dpone_fence%' ORDER BY name`,
    );
  return out.split('\n').filter(Boolean);
}

/**
 * The port's rule: only the first preparation (journal PREPARING, `create: true`) may create the
 * fence; everywhere else a missing fence was lost and is reported, never created. A later attempt
 * opens the target on every retry, so opening must not create the fence log either (the cell
 * journal-loss/rename/cas:COMMITTING->TARGET_COMMITTED:before found a retry recreating it empty).
 */
describe.skipIf(unverified)('clickhouse fence log lost between attempts (live)', () => {
  it('a retry opens, prepares without create and queries: the lost log stays lost, unknown, nothing written', async () => {
    const db = await freshDb();
    {
      await using first = await open(db);
      await first.prepareFence(fence(1), CREATE);
      expect(await first.mutate(request(1))).toMatchObject({ applied: true, rowsWritten: 2 });
    }
    await live.server().exec(`RENAME TABLE ${db}._dpone_fence TO ${db}._dpone_fence_lost`);

    await using retry = await open(db);
    expect(await fenceTables(db)).toEqual(['_dpone_fence_lost']);
    expect(await retry.prepareFence(fence(2), NO_CREATE)).toMatchObject({ installed: false, epoch: null });
    expect(await retry.queryFence('op-1')).toMatchObject({ status: 'unknown', epoch: null });
    await expect(retry.mutate(request(2))).rejects.toMatchObject({ code: ERROR_CODES.DIVERGED });
    expect(await fenceTables(db)).toEqual(['_dpone_fence_lost']);
    expect(await count(db)).toBe(2);
  });

  it('the first preparation still creates the log on a fresh target, and only it', async () => {
    const db = await freshDb();
    await using target = await open(db);
    expect(await fenceTables(db)).toEqual([]);
    expect(await target.prepareFence(fence(1), NO_CREATE)).toMatchObject({ installed: false, epoch: null });
    expect(await fenceTables(db)).toEqual([]);
    expect(await target.prepareFence(fence(1), CREATE)).toMatchObject({ installed: true, epoch: 1 });
    expect(await fenceTables(db)).toEqual(['_dpone_fence']);
  });
});
