import { closeSync, existsSync, mkdtempSync, openSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mountTmpfs } from './tmpfs-mount.ts';

const base = mkdtempSync(join(tmpdir(), 'dpone-tmpfs-mount-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));
const root = process.getuid?.() === 0;

describe.skipIf(!root)('the full-disk cells’ tmpfs', () => {
  it('mounts a size-limited file system, fills it to the last block, and unmounts when disposed', async () => {
    const started = await mountTmpfs(join(base, 'mnt'), '1m');
    expect(started.available).toBe(true);
    if (!started.available) return;
    const { mount } = started;
    try {
      const ballast = mount.fill();
      expect(existsSync(ballast)).toBe(true);
      expect(statfsSync(mount.mountPoint).bavail).toBe(0);
      // Full: not even one more block.
      expect(() => writeFileSync(join(mount.mountPoint, 'more'), Buffer.alloc(4096, 1))).toThrow(/ENOSPC/);
      rmSync(ballast);
      expect(statfsSync(mount.mountPoint).bavail).toBeGreaterThan(0);
    } finally {
      await mount[Symbol.asyncDispose]();
    }
    expect(existsSync(mount.mountPoint)).toBe(false);
  });

  it('remounts read-only (writes then fail with EROFS) and read-write again; refuses ro while a file is open for writing', async () => {
    const started = await mountTmpfs(join(base, 'ro'), '1m');
    if (!started.available) throw new Error(started.reason);
    const { mount } = started;
    try {
      writeFileSync(join(mount.mountPoint, 'kept'), 'x');
      const open = openSync(join(mount.mountPoint, 'kept'), 'a');
      try {
        expect(await mount.remount('ro')).toMatch(/EBUSY/);
      } finally {
        closeSync(open);
      }
      expect(await mount.remount('ro')).toBeNull();
      expect(() => writeFileSync(join(mount.mountPoint, 'more'), 'y')).toThrow(/EROFS/);
      expect(await mount.remount('rw')).toBeNull();
      writeFileSync(join(mount.mountPoint, 'more'), 'y');
    } finally {
      await mount[Symbol.asyncDispose]();
    }
  });

  it('says why when the mount is refused (the cells are then UNVERIFIED with that reason)', async () => {
    const refused = await mountTmpfs(join(base, 'bad'), 'not-a-size');
    expect(refused).toEqual({
      available: false,
      reason: expect.stringMatching(/^mount -t tmpfs was refused/),
    });
  });
});
