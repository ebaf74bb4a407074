import { existsSync } from 'node:fs';

/**
 * libfaketime (Debian's `faketime` package): a worker's clock offset through LD_PRELOAD, the way
 * Jepsen's clock nemesis skews a node's clock without touching the machine's. The multi-threaded
 * build, since node runs threads. The monotonic clock is left alone: timers and timeouts keep
 * their real durations, only the wall clock (Date.now, what leases are written with) moves.
 */
const CANDIDATES = [
  '/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1',
  '/usr/lib/aarch64-linux-gnu/faketime/libfaketimeMT.so.1',
  '/usr/lib/faketime/libfaketimeMT.so.1',
  '/usr/local/lib/faketime/libfaketimeMT.so.1',
];

/** What a machine without libfaketime is told (cells that need it are UNVERIFIED with this reason). */
export const FAKETIME_MISSING =
  'libfaketime is not installed (apt-get install -y faketime): a worker clock cannot be skewed here';

/** The library's path, or null when this machine does not have it (DPONE_FAKETIME_LIB overrides). */
export function findFaketimeLibrary(env: NodeJS.ProcessEnv = process.env): string | null {
  const given = env.DPONE_FAKETIME_LIB;
  if (given !== undefined && given !== '') return existsSync(given) ? given : null;
  return CANDIDATES.find((path) => existsSync(path)) ?? null;
}

/** A fixed offset for the worker's wall clock, in libfaketime's syntax (`+365d`, `-2h`, `+30s`). */
export function faketimeOffsetEnv(library: string, offset: string): Record<string, string> {
  return { LD_PRELOAD: library, FAKETIME: offset, FAKETIME_DONT_FAKE_MONOTONIC: '1' };
}

/**
 * A clock the harness moves while the worker runs: libfaketime reads the offset from `file` on
 * every clock call (FAKETIME_NO_CACHE), so writing `+2h` there jumps the worker's clock mid-run.
 */
export function faketimeJumpEnv(library: string, file: string): Record<string, string> {
  return {
    LD_PRELOAD: library,
    FAKETIME_TIMESTAMP_FILE: file,
    FAKETIME_NO_CACHE: '1',
    FAKETIME_DONT_FAKE_MONOTONIC: '1',
  };
}

/** libfaketime's offset syntax for a number of milliseconds (whole seconds; sign always written). */
export function faketimeOffset(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  return `${seconds < 0 ? '-' : '+'}${Math.abs(seconds)}s`;
}
