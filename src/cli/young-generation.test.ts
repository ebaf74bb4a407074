import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const MODULE = fileURLToPath(new URL('./young-generation.ts', import.meta.url));

/**
 * A child process allocates like a streamed load (chunks of short-lived rows, two chunks alive at a
 * time) and prints the largest young generation it saw. Without the bound V8 grows it far past the
 * cap; with it, growth stops within one doubling of the cap.
 */
const CHILD = `
import v8 from 'node:v8';
const bound = process.argv[1] === 'bound';
if (bound) (await import(${JSON.stringify(MODULE)})).boundYoungGeneration();
let largest = 0, previous = [];
for (let round = 0; round < 400; round++) {
  const chunk = Array.from({ length: 5000 }, (_, i) => [i, 'item-' + (i % 999), String(i * 7), { n: i }]);
  previous = [previous, chunk].slice(-2);
  if (round % 10 === 0) {
    await new Promise((resolve) => setImmediate(resolve));
    const young = v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
    largest = Math.max(largest, young.space_size);
  }
}
console.log(largest);
`;

async function largestYoungGeneration(mode: 'bound' | 'free'): Promise<number> {
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', CHILD, mode]);
  return Number(stdout.trim());
}

describe('boundYoungGeneration', () => {
  it('stops the young generation growing past the cap (within one doubling), where V8 alone grows it further', async () => {
    const [free, bound] = await Promise.all([
      largestYoungGeneration('free'),
      largestYoungGeneration('bound'),
    ]);
    const cap = 16 * 2 ** 20;
    expect(free).toBeGreaterThan(2 * cap);
    expect(bound).toBeLessThanOrEqual(2 * cap);
  }, 60_000);
});
