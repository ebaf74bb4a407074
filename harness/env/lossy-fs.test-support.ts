import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { lossyFsBinaryPath, lossyFsUnavailable } from './lossy-fs-binary.ts';
import { startLossyFs } from './lossy-fs.ts';
import type { LossyFs } from './lossy-fs.ts';

/**
 * Why the power-loss filesystem cannot run here, or null. Outside CI a machine without /dev/fuse or
 * the built binary skips with the reason; CI provisions both (.ci/run), so there a missing one fails.
 */
export function lossyFsMissing(): string | null {
  return process.env.CI === 'true' ? null : lossyFsUnavailable(lossyFsBinaryPath());
}

/** What a test file mounts with: `backing()` a fresh folder, `mount()` the filesystem over one. */
export interface LossyFsMounter {
  readonly backing: () => string;
  readonly mount: () => Promise<LossyFs>;
}

/**
 * For a test file: each backing folder (and so each mount's) is removed after each test (call it
 * at the file's top level: it installs an afterEach).
 */
export function lossyFsMounter(): LossyFsMounter {
  const backings: string[] = [];
  afterEach(() => {
    for (const dir of backings.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const backing = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'dpone-lossyfs-backing-'));
    backings.push(dir);
    return dir;
  };
  return {
    backing,
    mount: async () => {
      const started = await startLossyFs({ backing: backing() });
      if (!started.available) throw new Error(started.reason);
      return started.fs;
    },
  };
}
