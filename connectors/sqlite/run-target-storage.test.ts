import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../src/contracts/errors.ts';
import { fillFileSystem, mountTmpfs } from './journal/tmpfs.test-support.ts';
import { EXAMPLE_PARTITION_DAY } from '../../examples/seed-embedded.ts';
import type { ExampleCopy } from '../../src/cli/commands/example-workload.test-support.ts';
import {
  EXPECTED_ROWS,
  dpone,
  exampleCopy,
  parkedRun,
  targetCounts,
} from '../../src/cli/commands/example-workload.test-support.ts';

/**
 * Issue 33 "What was seen" 1 and 2, the SQLite TARGET side, through the real CLI: the target file
 * on a size-limited tmpfs filled to the last byte while `dpone run` is parked at fence creation,
 * before the rows (so the insert itself spills into a full disk) and before COMMIT; the target on a
 * read-only remount; a target or journal file of mode 444 for a non-root user. Each is its own exit
 * code naming the path and the cause (18 STORAGE_FULL, 31 PERMISSION_DENIED), nothing is
 * half-written, the lease is handed back, and once the fault is lifted one run writes the rows once.
 * Mounting needs root with CAP_SYS_ADMIN (CI runs as root); where refused those cases are skipped.
 */
const BIN = fileURLToPath(new URL('../../bin/dpone.js', import.meta.url));
const NOBODY = 65534;

const tmpfs = mountTmpfs('dpone-target-storage-', '16m');
const { mountPoint, refused: mountRefused } = tmpfs;
afterAll(() => tmpfs.release());

function errorOf(stderr: string): { code?: string; message?: string; hint?: string } {
  const line = stderr.split('\n').find((l) => l.trim().startsWith('{'));
  return line ? ((JSON.parse(line) as { error?: object }).error ?? {}) : {};
}

/** The journal entry's state and lease holder, read from the file (the run's default journal). */
function journalEntry(example: ExampleCopy): { state: string; lease_holder: string | null } {
  const db = new DatabaseSync(join(example.dir, 'data/state/journal.db'), { readOnly: true });
  try {
    return db.prepare('SELECT state, lease_holder FROM dpone_commit_journal').get() as {
      state: string;
      lease_holder: string | null;
    };
  } finally {
    db.close();
  }
}

/** The example with its target at `path` (absolute). */
function withTargetAt(path: string, extraRows = 0): { example: ExampleCopy; workload: string } {
  const example = exampleCopy();
  if (extraRows > 0) {
    const db = new DatabaseSync(join(example.dir, 'data/source.db'));
    const insert = db.prepare('INSERT INTO orders (id, day, amount, region) VALUES (?, ?, ?, ?)');
    db.exec('BEGIN');
    for (let i = 0; i < extraRows; i++)
      insert.run(1_000_000 + i, EXAMPLE_PARTITION_DAY, i / 7, `region-${'x'.repeat(40)}-${i}`);
    db.exec('COMMIT');
    db.close();
  }
  const workload = example.variant('on-target.yaml', (text) =>
    text.replace("url: 'sqlite:data/target.db'", `url: 'sqlite://${path}'`),
  );
  return { example, workload };
}

/** A `dpone run` parked at `point`; `resume()` lets it go on (SIGUSR2). Its trace lists the points passed. */
function resumableRun(example: ExampleCopy, workload: string, point: string) {
  const trace = join(example.dir, 'trace.txt');
  const run = parkedRun(example, point, { workload, trace });
  return {
    ...run,
    resume: () => run.child.kill('SIGUSR2'),
    points: () => readFileSync(trace, 'utf8').split('\n').filter(Boolean),
  };
}

describe.skipIf(mountRefused !== null)('the SQLite target on a full file system', () => {
  const cases = [
    { when: 'at fence creation', point: 'fence.prepare:before', extraRows: 0 },
    // 40,000 rows outgrow SQLite's page cache: the insert itself writes pages to a full disk.
    { when: 'during the insert', point: 'target.mutate:begin', extraRows: 40_000 },
    { when: 'at COMMIT', point: 'target.commit:before', extraRows: 0 },
  ] as const;
  it.each(cases)(
    '$when: exit 18 STORAGE_FULL naming the target and the cause; nothing written, lease handed back, one write once freed',
    async ({ when, point, extraRows }) => {
      const folder = join(mountPoint, when.replaceAll(' ', '-'));
      mkdirSync(folder);
      const target = join(folder, 'target.db');
      const { example, workload } = withTargetAt(target, extraRows);
      const run = resumableRun(example, workload, point);
      await run.parked;
      const ballast = fillFileSystem(folder);
      run.resume();
      const failed = await run.child;
      const error = errorOf(String(failed.stderr));
      expect(failed.exitCode, String(failed.stderr)).toBe(EXIT_CODES.DPONE_STORAGE_FULL);
      expect(error.code).toBe('DPONE_STORAGE_FULL');
      expect(error.message).toContain(`the SQLite target ${target} could not be written: its disk is full`);
      expect(error.message).toMatch(/\((SQLITE_FULL|ENOSPC)\)/);
      expect(error.hint).toMatch(/^free space on the target file system, then retry/);
      if (when === 'during the insert') {
        // It failed while the rows streamed in, before COMMIT was reached.
        expect(run.points()).toContain('target.mutate:begin');
        expect(run.points()).not.toContain('target.commit:before');
      }
      // The lease is handed back at once: the operation waits for a retry, held by nobody.
      expect(journalEntry(example)).toEqual({ state: 'FAILED_PRE_COMMIT', lease_holder: null });
      rmSync(ballast);
      // Nothing was half-written: not one row (the table may not even exist before a first write).
      const rows = existsSync(target) ? tableRows(target) : 0;
      expect(rows).toBe(0);
      const retried = await dpone(['run', '--workload', workload, '--json'], { cwd: example.dir });
      expect(retried.exitCode, retried.stderr).toBe(0);
      expect(JSON.parse(retried.stdout)).toMatchObject({ status: 'committed', mutated: true });
      const expected = EXPECTED_ROWS + extraRows;
      expect(targetCounts(target)).toEqual({ rows: expected, distinctIds: expected });
    },
    60_000,
  );
});

describe.skipIf(mountRefused !== null)(
  'a SQLite target reached through a symbolic link, on a full file system',
  () => {
    it('exit 18 STORAGE_FULL naming the link and the cause (the -shm that could not grow is beside the file the link names), not 11', async () => {
      const folder = join(mountPoint, 'linked');
      mkdirSync(folder);
      const example = exampleCopy();
      const real = join(folder, 'target.db');
      // A WAL database as a first run leaves it: opening it maps a -shm, which a full disk refuses
      // with SQLITE_IOERR and no errno, so the runtime asks the file system itself.
      const db = new DatabaseSync(real);
      db.exec('PRAGMA journal_mode = WAL; CREATE TABLE earlier (id INTEGER)');
      db.close();
      const link = join(example.dir, 'linked-target.db');
      symlinkSync(real, link);
      const workload = example.variant('linked.yaml', (text) =>
        text.replace("url: 'sqlite:data/target.db'", `url: 'sqlite://${link}'`),
      );
      const ballast = fillFileSystem(folder);
      const refused = await dpone(['run', '--workload', workload, '--json'], { cwd: example.dir });
      const error = errorOf(refused.stderr);
      expect(refused.exitCode, refused.stderr).toBe(EXIT_CODES.DPONE_STORAGE_FULL);
      expect(error.message).toContain(`the SQLite target ${link} could not be written: its disk is full`);
      expect(error.message).toMatch(/\((SQLITE_FULL|ENOSPC)\)/);
      expect(journalEntry(example)).toEqual({ state: 'FAILED_PRE_COMMIT', lease_holder: null });
      rmSync(ballast);
      const retried = await dpone(['run', '--workload', workload, '--json'], { cwd: example.dir });
      expect(retried.exitCode, retried.stderr).toBe(0);
      expect(targetCounts(real)).toEqual({ rows: EXPECTED_ROWS, distinctIds: EXPECTED_ROWS });
    }, 60_000);
  },
);

/** Rows in the target's table; 0 when no table was created yet. */
function tableRows(path: string): number {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'events'").get();
    return exists ? Number((db.prepare('SELECT COUNT(*) AS n FROM events').get() as { n: number }).n) : 0;
  } finally {
    db.close();
  }
}

describe.skipIf(mountRefused !== null)('the SQLite target on a read-only remount', () => {
  it('exit 31 PERMISSION_DENIED naming the target and EROFS, before SQLite opens it; remounted read-write, the next run writes once', async () => {
    const folder = join(mountPoint, 'read-only');
    mkdirSync(folder);
    const target = join(folder, 'target.db');
    const { example, workload } = withTargetAt(target);
    new DatabaseSync(target).close(); // an existing (empty) database file
    execFileSync('mount', ['-o', 'remount,ro', mountPoint]);
    let refused;
    try {
      refused = await dpone(['run', '--workload', workload, '--json'], { cwd: example.dir });
    } finally {
      execFileSync('mount', ['-o', 'remount,rw', mountPoint]);
    }
    const error = errorOf(refused.stderr);
    expect(refused.exitCode, refused.stderr).toBe(EXIT_CODES.DPONE_PERMISSION_DENIED);
    expect(error.code).toBe('DPONE_PERMISSION_DENIED');
    expect(error.message).toBe(`target.url names a file this process may not write (EROFS): ${target}`);
    expect(error.hint).toMatch(/remount it read-write/);
    expect(readdirSync(folder).sort()).toEqual(['target.db']);
    const retried = await dpone(['run', '--workload', workload, '--json'], { cwd: example.dir });
    expect(retried.exitCode, retried.stderr).toBe(0);
    expect(targetCounts(target)).toEqual({ rows: EXPECTED_ROWS, distinctIds: EXPECTED_ROWS });
  }, 60_000);
});

/**
 * `dpone run` as user nobody, able to read everything (CAP_DAC_READ_SEARCH: node lives under
 * /root) but to write only what nobody may write.
 */
function runAsNobody(example: ExampleCopy, workload: string) {
  return execa(
    'setpriv',
    [
      `--reuid=${NOBODY}`,
      `--regid=${NOBODY}`,
      '--clear-groups',
      '--inh-caps=+dac_read_search',
      '--ambient-caps=+dac_read_search',
      process.execPath,
      BIN,
      'run',
      '--workload',
      workload,
      '--json',
    ],
    { cwd: example.dir, reject: false, env: { DPONE_FAULT_PLAN: '', DPONE_XCOM_PATH: '' } },
  );
}

function chownTree(path: string): void {
  execFileSync('chown', ['-R', `${NOBODY}:${NOBODY}`, path]);
}

const nobodyRefused = (() => {
  if (process.getuid?.() !== 0) return 'needs root to switch to user nobody';
  try {
    execFileSync('setpriv', [
      '--reuid=65534',
      '--inh-caps=+dac_read_search',
      '--ambient-caps=+dac_read_search',
      'true',
    ]);
    return null;
  } catch {
    return 'setpriv with an ambient capability was refused here';
  }
})();

describe.skipIf(nobodyRefused !== null)('a SQLite file of mode 444 for a non-root user', () => {
  it('a read-only target: exit 31 naming it and EACCES, no -wal/-shm left; made writable, the next run writes once', async () => {
    const example = exampleCopy();
    const target = example.targetPath();
    new DatabaseSync(target).close();
    chownTree(example.dir);
    chmodSync(target, 0o444);
    const refused = await runAsNobody(example, example.workload);
    const error = errorOf(refused.stderr);
    expect(refused.exitCode, refused.stderr).toBe(EXIT_CODES.DPONE_PERMISSION_DENIED);
    expect(error.message).toBe(`target.url names a file this process may not write (EACCES): ${target}`);
    expect(existsSync(`${target}-wal`) || existsSync(`${target}-shm`)).toBe(false);
    chmodSync(target, 0o644);
    const retried = await runAsNobody(example, example.workload);
    expect(retried.exitCode, retried.stderr).toBe(0);
    expect(JSON.parse(retried.stdout)).toMatchObject({ status: 'committed', mutated: true });
    expect(targetCounts(target)).toEqual({ rows: EXPECTED_ROWS, distinctIds: EXPECTED_ROWS });
  }, 60_000);

  it('a read-only journal: exit 31 naming it and the default that chose it, no -shm left behind; made writable, the next run goes on', async () => {
    const example = exampleCopy();
    chownTree(example.dir);
    const first = await runAsNobody(example, example.workload);
    expect(first.exitCode, first.stderr).toBe(0);
    const journal = join(example.dir, 'data/state/journal.db');
    chmodSync(journal, 0o444);
    const refused = await runAsNobody(example, example.workload);
    const error = errorOf(refused.stderr);
    expect(refused.exitCode, refused.stderr).toBe(EXIT_CODES.DPONE_PERMISSION_DENIED);
    expect(error.message).toBe(
      `the default journal.db in execution.state_dir names a file this process may not write (EACCES): ${journal}`,
    );
    // No -wal or -shm of the journal was created by the refused run (the state folder also holds checkpoints).
    expect(readdirSync(join(example.dir, 'data/state')).filter((f) => f.startsWith('journal.db'))).toEqual([
      'journal.db',
    ]);
    chmodSync(journal, 0o644);
    const again = await runAsNobody(example, example.workload);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ status: 'already-complete', mutated: false });
    expect(targetCounts(example.targetPath())).toEqual({ rows: EXPECTED_ROWS, distinctIds: EXPECTED_ROWS });
  }, 60_000);
});
