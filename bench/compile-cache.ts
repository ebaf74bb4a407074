import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { median, round } from './stats.ts';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '..');

/**
 * What one `dpone` process start costs with Node's compile cache (bin/dpone.js enables it) and
 * without it (NODE_DISABLE_COMPILE_CACHE=1), alternated in the same run: every certification
 * attempt spawns such a process. `dpone identity` of the example workload loads the same modules a
 * `dpone run` worker does and touches no database.
 */
export interface StartupCost {
  readonly cached_ms: number;
  readonly uncached_ms: number;
  readonly ratio: number;
}

async function once(disable: boolean): Promise<number> {
  const env = { ...process.env, ...(disable ? { NODE_DISABLE_COMPILE_CACHE: '1' } : {}) };
  const started = performance.now();
  await run(process.execPath, ['bin/dpone.js', 'identity', '--workload', 'examples/workload.yaml'], {
    cwd: ROOT,
    env,
  });
  return performance.now() - started;
}

export async function startupCost(repeats: number): Promise<StartupCost> {
  await once(false); // fills the cache if this checkout has never run
  const cached: number[] = [];
  const uncached: number[] = [];
  for (let i = 0; i < repeats; i++) {
    uncached.push(await once(true));
    cached.push(await once(false));
  }
  return {
    cached_ms: round(median(cached)),
    uncached_ms: round(median(uncached)),
    ratio: round(median(cached) / median(uncached)),
  };
}

// `node bench/compile-cache.ts`: this entry alone.
if (import.meta.main) console.table([await startupCost(9)]);
