/**
 * Runs `work` over `items` with at most `limit` in flight; results keep the items' order.
 * `onDone` sees each result as it completes. Once `stopped()` is true no new item starts (the
 * results of items never started stay empty). The first item that fails stops new ones too, and its
 * error is thrown once the items in flight have settled.
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
  // The first failure stops new items and is thrown only once every item in flight has settled:
  // a caller's cleanup (removing the folders those items write in) must not race them, or its own
  // error (ENOTEMPTY) would be what the run reports instead of the real one.
  let failure: { readonly error: unknown } | undefined;
  const lane = async () => {
    while (next < items.length && !stopped() && !failure) {
      const index = next++;
      try {
        results[index] = await work(items[index]!, index);
        await onDone?.(results[index]!, index);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
  if (failure) throw failure.error;
  return results;
}
