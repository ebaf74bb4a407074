/**
 * Runs `work` over `items` with at most `limit` in flight; results keep the items' order.
 * `onDone` sees each result as it completes. Once `stopped()` is true no new item starts (the
 * results of items never started stay empty).
 */
export async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<R>,
  onDone?: (result: R, index: number) => void | Promise<void>,
  stopped: () => boolean = () => false,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length && !stopped()) {
      const index = next++;
      results[index] = await work(items[index]!, index);
      await onDone?.(results[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
  return results;
}
