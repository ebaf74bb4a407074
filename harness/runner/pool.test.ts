import { describe, expect, it } from 'vitest';
import { mapBounded, mapBoundedSplit } from './pool.ts';

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

describe('mapBoundedSplit', () => {
  it('runs the waiting kind on lanes of its own: `limit` of each kind at once, order kept', async () => {
    const inFlight = { wait: 0, busy: 0, all: 0 };
    const most = { wait: 0, busy: 0, all: 0 };
    const items = ['w1', 'b1', 'w2', 'b2', 'b3'];
    const results = await mapBoundedSplit(
      items,
      1,
      (item) => item.startsWith('w'),
      async (item) => {
        const kind = item.startsWith('w') ? 'wait' : 'busy';
        most[kind] = Math.max(most[kind], ++inFlight[kind]);
        most.all = Math.max(most.all, ++inFlight.all);
        await tick(item.startsWith('w') ? 40 : 10);
        inFlight[kind]--;
        inFlight.all--;
        return item.toUpperCase();
      },
    );
    expect(results).toEqual(['W1', 'B1', 'W2', 'B2', 'B3']);
    // One lane each: never two of a kind at once, but one of each did run together.
    expect(most).toEqual({ wait: 1, busy: 1, all: 2 });
  });

  it('a failure of one kind stops new items of both and is thrown once the items in flight settle', async () => {
    const started: string[] = [];
    const settled: string[] = [];
    const run = mapBoundedSplit(
      ['w1', 'b1', 'w2', 'b2', 'b3'],
      1,
      (item) => item.startsWith('w'),
      async (item) => {
        started.push(item);
        if (item === 'b1') {
          await tick(5);
          throw new Error('the real failure');
        }
        await tick(30);
        settled.push(item);
        return item;
      },
    );
    await expect(run).rejects.toThrow('the real failure');
    expect(started.sort()).toEqual(['b1', 'w1']);
    expect(settled).toEqual(['w1']);
  });
});
