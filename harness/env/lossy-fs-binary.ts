import { createHash } from 'node:crypto';
import { accessSync, constants, existsSync, readdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The Go sources of the power-loss filesystem (built by `build.sh` beside them). */
export const LOSSYFS_SOURCES = join(import.meta.dirname, 'lossyfs');

/**
 * The binary `harness/env/lossyfs/build.sh` builds for the current sources: the same digest (go.mod,
 * go.sum, then the .go files in byte order of their names) names the same cached file.
 */
export function lossyFsBinaryPath(env: NodeJS.ProcessEnv = process.env): string {
  const given = env.DPONE_LOSSYFS_BIN;
  if (given !== undefined && given !== '') return given;
  const hash = createHash('sha256');
  const goFiles = readdirSync(LOSSYFS_SOURCES)
    .filter((name) => name.endsWith('.go'))
    .sort();
  for (const name of ['go.mod', 'go.sum', ...goFiles]) hash.update(readFileSync(join(LOSSYFS_SOURCES, name)));
  const cache = env.DPONE_LOSSYFS_CACHE ?? join(homedir(), '.cache', 'dpone-lossyfs');
  return join(cache, `lossyfs-${hash.digest('hex').slice(0, 16)}`);
}

/**
 * Why this machine cannot run the power-loss filesystem, or null when it can (the binary is built
 * and /dev/fuse opens). Cells and tests that need it are UNVERIFIED with this reason.
 */
export function lossyFsUnavailable(binary: string): string | null {
  try {
    accessSync('/dev/fuse', constants.R_OK | constants.W_OK);
  } catch {
    return '/dev/fuse is missing or not writable here: a FUSE filesystem cannot be mounted';
  }
  if (!existsSync(binary)) {
    return `the power-loss filesystem is not built (${binary} is missing): run bash harness/env/lossyfs/build.sh`;
  }
  return null;
}
