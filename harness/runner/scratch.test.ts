import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TMPFS_ROWS_LIMIT, claimScratch, removeAbandonedScratch, scratchRoot } from './scratch.ts';

describe('scratch folders', () => {
  const root = mkdtempSync(join(tmpdir(), 'dpone-scratch-test-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('puts small partitions on tmpfs and large ones on disk', () => {
    expect(scratchRoot(20, root)).toBe(root);
    expect(scratchRoot(TMPFS_ROWS_LIMIT, root)).toBe(root);
    expect(scratchRoot(1_000_000, root)).toBe(tmpdir());
    expect(scratchRoot(20, join(root, 'no-tmpfs-here'))).toBe(tmpdir());
  });

  it('removes the folders of runs that died, and keeps live, unowned and foreign ones', async () => {
    // A pid that certainly ended: a child that has already exited.
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    const folder = (name: string) => {
      const path = join(root, name);
      mkdirSync(path);
      return path;
    };
    const abandoned = folder('dpone-run-killed');
    await claimScratch(abandoned, dead);
    const live = folder('dpone-run-live');
    await claimScratch(live);
    const unowned = folder('dpone-run-older');
    const foreign = folder('other-tool');
    await claimScratch(foreign, dead);
    expect(await removeAbandonedScratch(root)).toEqual([abandoned]);
    expect([abandoned, live, unowned, foreign].map(existsSync)).toEqual([false, true, true, true]);
  });
});
