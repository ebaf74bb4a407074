import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

/** How large V8's young generation (both semi-spaces) may grow in a `dpone run` process. */
export const YOUNG_GENERATION_CAP_BYTES = 16 * 2 ** 20;

/**
 * Bounds the young generation of this process. A streamed load allocates short-lived chunks fast,
 * and V8 then doubles the young generation after garbage collections up to its own maximum (128 MB
 * on this machine's Node 24): for a 1,000,000-row partition read from a server that alone was half the
 * worker's peak RSS (263–272 MB, of which 128 MB young generation). The size V8 starts with and its
 * maximum are fixed when the process starts (`--max-semi-space-size` on the command line), but the
 * growth factor is read at each growth: once the young generation has reached the cap, growth stops.
 * Below the cap V8 sizes it as usual, so small runs and the CPU cost of collection are unchanged.
 * Returns a function that stops watching.
 */
export function boundYoungGeneration(capBytes: number = YOUNG_GENERATION_CAP_BYTES): () => void {
  let bounded = false;
  const check = (): void => {
    if (bounded) return;
    const young = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
    if (young === undefined || young.space_size < capBytes) return;
    setFlagsFromString('--semi-space-growth-factor=1');
    bounded = true;
    observer.disconnect();
  };
  const observer = new PerformanceObserver(check);
  observer.observe({ entryTypes: ['gc'] });
  check();
  return () => observer.disconnect();
}
