import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { DatabaseSync } from 'node:sqlite';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LossyFs } from '../../../../harness/env/lossy-fs.ts';
import { lossyFsMissing, lossyFsMounter } from '../../../../harness/env/lossy-fs.test-support.ts';

/**
 * SQLite's WAL commits on the power-loss filesystem (harness/env/lossy-fs.ts, whose own behaviour
 * harness/env/lossy-fs.test.ts holds): synchronous=FULL keeps every committed transaction across a
 * cut, OFF and NORMAL lose them (the unsafe variants the power-loss cells must catch).
 */

const missing = lossyFsMissing();
const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'sqlite-commits.ts');
const { mount } = lossyFsMounter();

describe.skipIf(missing !== null)(
  `SQLite on the power-loss filesystem${missing === null ? '' : ` (skipped: ${missing})`}`,
  () => {
    it('keeps every committed SQLite transaction across a cut with synchronous=FULL (WAL, as the journal)', async () => {
      await using fs = await mount();
      expect(await commitsAfterCut(fs, 'FULL', 5)).toBe(5);
      expect((await fs.stats()).cuts).toBe(1);
    });

    it.each(['OFF', 'NORMAL'])(
      'loses committed SQLite transactions at a cut with synchronous=%s (WAL: NORMAL syncs only at a checkpoint; the unsafe variants it must catch)',
      async (synchronous) => {
        await using fs = await mount();
        expect(await commitsAfterCut(fs, synchronous, 5)).toBe(0);
      },
    );
  },
);

/**
 * A database made durable with its table, then COUNT transactions committed by a process opened
 * with `synchronous`, which is killed before the power is cut. Returns the rows that survive.
 */
async function commitsAfterCut(fs: LossyFs, synchronous: string, count: number): Promise<number> {
  const path = join(fs.mountPoint, 'journal.db');
  const setup = new DatabaseSync(path);
  setup.exec('PRAGMA journal_mode = WAL');
  setup.exec('CREATE TABLE commits (n INTEGER)');
  setup.close();
  await fs.syncAll();

  const writer = spawn(process.execPath, [FIXTURE, path, synchronous, String(count)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await committed(writer, count);
  const exited = new Promise((resolve) => writer.once('exit', resolve));
  writer.kill('SIGKILL');
  await exited;
  await fs.cutPower();

  const after = new DatabaseSync(path);
  try {
    return (after.prepare('SELECT count(*) AS n FROM commits').get() as { n: number }).n;
  } finally {
    after.close();
  }
}

function committed(writer: ChildProcess, count: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    writer.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes(`committed ${count}\n`)) resolve();
    });
    writer.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
    writer.once('exit', (code) =>
      reject(new Error(`writer exited ${code} before committing: ${err.trim()}`)),
    );
  });
}
