/** Wraps an object so every method call is counted under `<label>.<method>` (benchmarks only). */
export function countCalls<T extends object>(target: T, label: string, counts: Map<string, number>): T {
  return new Proxy(target, {
    get(object, key, receiver) {
      const value: unknown = Reflect.get(object, key, receiver);
      if (typeof value !== 'function' || typeof key !== 'string') return value;
      return (...args: unknown[]) => {
        counts.set(`${label}.${key}`, (counts.get(`${label}.${key}`) ?? 0) + 1);
        return (value as (...a: unknown[]) => unknown).apply(object, args);
      };
    },
  });
}

/** Journal writes of one operation: each is one durable commit (create, lease, compare-and-set, chain). */
export function journalCommits(counts: ReadonlyMap<string, number>): number {
  return [
    'journal.createIntent',
    'journal.acquireLease',
    'journal.compareAndSet',
    'journal.compareAndSetChain',
  ]
    .map((key) => counts.get(key) ?? 0)
    .reduce((a, b) => a + b, 0);
}
