import { describe, expect, it } from 'vitest';
import { mapBounded } from './pool.ts';

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('mapBounded', () => {
  it('keeps the items’ order and never has more than `limit` in flight', async () => {
    let inFlight = 0;
    let most = 0;
    const results = await mapBounded([5, 1, 4, 2, 3], 2, async (item) => {
      most = Math.max(most, ++inFlight);
      await tick(item);
      inFlight--;
      return item * 10;
    });
    expect(results).toEqual([50, 10, 40, 20, 30]);
    expect(most).toBe(2);
  });

  it('a failure throws the real error only after the items in flight settle, and starts no new item', async () => {
    const settled: number[] = [];
    const started: number[] = [];
    const run = mapBounded([0, 1, 2, 3, 4], 2, async (item) => {
      started.push(item);
      if (item === 0) throw new Error('the real failure');
      await tick(30);
      settled.push(item);
      return item;
    });
    await expect(run).rejects.toThrow('the real failure');
    // Item 1 was in flight when item 0 failed: it finished before the error reached the caller.
    expect(settled).toEqual([1]);
    expect(started).toEqual([0, 1]);
  });
});
