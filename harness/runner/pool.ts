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

/**
 * `mapBounded` with two kinds of item, each kind on `limit` lanes of its own: items that mostly wait
 * on something else (`waits`: a cell whose attempts an Airflow scheduler starts) do not hold the
 * lanes the others need to keep the CPUs busy. Results keep the items' order. The first failure of
 * either kind stops new items of both and is thrown once every item in flight has settled.
 */
export async function mapBoundedSplit<T, R>(
  items: readonly T[],
  limit: number,
  waits: (item: T) => boolean,
  work: (item: T, index: number) => Promise<R>,
  onDone?: (result: R, index: number) => void | Promise<void>,
  stopped: () => boolean = () => false,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let failed = false;
  const indexed = items.map((item, index) => ({ item, index }));
  const groups = [indexed.filter(({ item }) => waits(item)), indexed.filter(({ item }) => !waits(item))];
  const settled = await Promise.allSettled(
    groups.map((group) =>
      mapBounded(
        group,
        limit,
        async ({ item, index }) => {
          try {
            return await work(item, index);
          } catch (error) {
            failed = true;
            throw error;
          }
        },
        async (result, position) => {
          const { index } = group[position]!;
          results[index] = result;
          await onDone?.(result, index);
        },
        () => failed || stopped(),
      ),
    ),
  );
  const rejected = settled.find((outcome) => outcome.status === 'rejected');
  if (rejected) throw rejected.reason;
  return results;
}
