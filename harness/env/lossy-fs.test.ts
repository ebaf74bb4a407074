import { spawn } from 'node:child_process';
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdtempSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lossyFsMissing, lossyFsMounter } from './lossy-fs.test-support.ts';
import { startLossyFs } from './lossy-fs.ts';

const missing = lossyFsMissing();
const HOLDER = join(import.meta.dirname, 'fixtures', 'lossy-fs-holder.ts');
const { backing: newBacking, mount } = lossyFsMounter();

/** Writes `text` at the start of `path` (creating it), fsyncing the file when `sync` says so. */
function put(path: string, text: string, sync: boolean): void {
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, text);
    if (sync) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function syncDir(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

describe.skipIf(missing !== null)(
  `power-loss filesystem${missing === null ? '' : ` (skipped: ${missing})`}`,
  () => {
    it('loses an unsynced write at a power cut and keeps a synced one; reads see unsynced data before the cut', async () => {
      await using fs = await mount();
      const synced = join(fs.mountPoint, 'synced');
      const unsynced = join(fs.mountPoint, 'unsynced');
      put(synced, 'old', true);
      put(unsynced, 'old', true);
      syncDir(fs.mountPoint);

      put(synced, 'new and fsynced', true);
      put(unsynced, 'new, never fsynced', false);
      expect(readFileSync(unsynced, 'utf8')).toBe('new, never fsynced');
      expect(readFileSync(join(fs.backing, 'unsynced'), 'utf8')).toBe('old');
      expect((await fs.stats()).unsynced).toBe(1);

      await fs.cutPower();
      expect(readFileSync(synced, 'utf8')).toBe('new and fsynced');
      expect(readFileSync(unsynced, 'utf8')).toBe('old');
      expect(readFileSync(join(fs.backing, 'synced'), 'utf8')).toBe('new and fsynced');
    });

    it('holds a truncate until the file is fsynced', async () => {
      await using fs = await mount();
      const file = join(fs.mountPoint, 'data');
      put(file, 'twelve bytes', true);
      syncDir(fs.mountPoint);
      truncateSync(file, 3);
      expect(readFileSync(file, 'utf8')).toBe('twe');
      await fs.cutPower();
      expect(readFileSync(file, 'utf8')).toBe('twelve bytes');
    });

    it('drops a file created without syncing its directory; keeps one whose directory was synced', async () => {
      await using fs = await mount();
      put(join(fs.mountPoint, 'kept'), 'kept', true);
      syncDir(fs.mountPoint);
      // fsynced content, but the name is only in the directory's unsynced entries.
      put(join(fs.mountPoint, 'lost'), 'lost', true);
      expect(existsSync(join(fs.mountPoint, 'lost'))).toBe(true);
      expect(existsSync(join(fs.backing, 'lost'))).toBe(false);

      await fs.cutPower();
      expect(readFileSync(join(fs.mountPoint, 'kept'), 'utf8')).toBe('kept');
      expect(existsSync(join(fs.mountPoint, 'lost'))).toBe(false);
    });

    it('undoes a rename and an unlink at a cut unless the directory was synced', async () => {
      await using fs = await mount();
      const dir = fs.mountPoint;
      put(join(dir, 'a'), 'a', true);
      put(join(dir, 'gone'), 'gone', true);
      syncDir(dir);
      renameSync(join(dir, 'a'), join(dir, 'b'));
      unlinkSync(join(dir, 'gone'));
      await fs.cutPower();
      expect(readFileSync(join(dir, 'a'), 'utf8')).toBe('a');
      expect(existsSync(join(dir, 'b'))).toBe(false);
      expect(readFileSync(join(dir, 'gone'), 'utf8')).toBe('gone');

      renameSync(join(dir, 'a'), join(dir, 'b'));
      unlinkSync(join(dir, 'gone'));
      syncDir(dir);
      await fs.cutPower();
      expect(readFileSync(join(dir, 'b'), 'utf8')).toBe('a');
      expect(existsSync(join(dir, 'a'))).toBe(false);
      expect(existsSync(join(dir, 'gone'))).toBe(false);
    });

    it('leaves no mount behind when a process still holds a file open at dispose', async () => {
      const fs = await mount();
      writeFileSync(join(fs.mountPoint, 'held'), 'x');
      const holder = spawn('sleep', ['30'], { stdio: ['ignore', 'ignore', 'ignore'], cwd: fs.mountPoint });
      try {
        await fs[Symbol.asyncDispose]();
        expect(isMounted(fs.mountPoint)).toBe(false);
      } finally {
        holder.kill('SIGKILL');
      }
    });

    it('leaves no mount behind when the process that mounted it is SIGKILLed', async () => {
      const backing = newBacking();
      const harness = spawn(process.execPath, [HOLDER, backing], { stdio: ['ignore', 'pipe', 'pipe'] });
      const mountPoint = await new Promise<string>((resolve, reject) => {
        let out = '';
        harness.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes('\n')) resolve(out.trim());
        });
        harness.once('exit', (code) => reject(new Error(`the holder exited ${code}`)));
      });
      expect(isMounted(mountPoint)).toBe(true);
      const exited = new Promise((resolve) => harness.once('exit', resolve));
      harness.kill('SIGKILL');
      await exited;
      await expect.poll(() => isMounted(mountPoint), { timeout: 5_000 }).toBe(false);
      // Nor its temporary folder: the killed harness cannot remove it, the filesystem it started does.
      await expect.poll(() => existsSync(dirname(mountPoint)), { timeout: 5_000 }).toBe(false);
    });
  },
);

function isMounted(mountPoint: string): boolean {
  return readFileSync('/proc/self/mounts', 'utf8')
    .split('\n')
    .some((line) => line.split(' ')[1] === mountPoint);
}

describe('power-loss filesystem availability', () => {
  it('says why it cannot mount when the binary is not built', async () => {
    const previous = process.env.DPONE_LOSSYFS_BIN;
    process.env.DPONE_LOSSYFS_BIN = join(tmpdir(), 'no-such-lossyfs');
    const backing = mkdtempSync(join(tmpdir(), 'dpone-lossyfs-none-'));
    try {
      const started = await startLossyFs({ backing });
      expect(started.available).toBe(false);
      if (!started.available) expect(started.reason).toMatch(/not built|\/dev\/fuse/);
    } finally {
      if (previous === undefined) delete process.env.DPONE_LOSSYFS_BIN;
      else process.env.DPONE_LOSSYFS_BIN = previous;
      rmSync(backing, { recursive: true, force: true });
    }
  });
});
