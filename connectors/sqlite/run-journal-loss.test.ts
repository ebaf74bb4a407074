import { execSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync, statSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../src/contracts/errors.ts';
import {
  EXPECTED_ROWS,
  dpone,
  exampleCopy,
  fileDigest,
  parkedRun,
  targetCounts,
} from '../../src/cli/commands/example-workload.test-support.ts';

/**
 * Issue 10's reproductions, through the real CLI on the example workload: after the first run
 * committed, the journal is emptied, its state folder deleted, another journal named, or its WAL
 * deleted while a worker is parked. The target must end with the rows once, and no second attempt
 * may claim a write the fence does not prove.
 */
const BIN = fileURLToPath(new URL('../../bin/dpone.js', import.meta.url));
const PARK_POINT = 'cas:PREPARED->COMMITTING:after';

async function committedOnce() {
  const example = exampleCopy();
  const first = await dpone(['run', '--workload', example.workload, '--json'], { cwd: example.dir });
  expect(first.exitCode, first.stderr).toBe(0);
  expect(JSON.parse(first.stdout)).toMatchObject({ status: 'committed', mutated: true });
  return { example, journal: join(example.dir, 'data/state/journal.db') };
}

const run = (example: ReturnType<typeof exampleCopy>, ...extra: string[]) =>
  dpone(['run', '--workload', example.workload, '--json', ...extra], { cwd: example.dir });

function errorCode(stderr: string): string | undefined {
  const line = stderr.split('\n').find((l) => l.trim().startsWith('{'));
  return line ? (JSON.parse(line) as { error?: { code?: string } }).error?.code : undefined;
}

/** The journal's entries and history, as rows (what "no journal change" compares). */
function journalRows(path: string): unknown[] {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    return [
      ...db.prepare('SELECT * FROM dpone_commit_journal').all(),
      ...db.prepare('SELECT * FROM dpone_commit_journal_history ORDER BY version').all(),
    ];
  } finally {
    db.close();
  }
}

describe('issue 10 reproduced through the CLI: a lost journal never gives a second write', () => {
  it('an emptied journal file is JOURNAL_UNAVAILABLE: not re-created, nothing written', async () => {
    const { example, journal } = await committedOnce();
    truncateSync(journal, 0);
    const second = await run(example);
    expect(second.exitCode).toBe(EXIT_CODES.DPONE_TARGET_COMMIT_JOURNAL_UNAVAILABLE);
    expect(errorCode(second.stderr)).toBe('DPONE_TARGET_COMMIT_JOURNAL_UNAVAILABLE');
    expect(second.stderr).toMatch(/never re-created silently/);
    expect(statSync(journal).size).toBe(0);
    expect(targetCounts(example.targetPath())).toEqual({ rows: EXPECTED_ROWS, distinctIds: EXPECTED_ROWS });
  });

  it('a deleted state folder: the new journal learns the commit from the fence; already-complete, mutated false', async () => {
    const { example } = await committedOnce();
    rmSync(join(example.dir, 'data/state'), { recursive: true, force: true });
    const second = await run(example);
    expect(second.exitCode, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({
      status: 'already-complete',
      state: 'COMPLETE',
      mutated: false,
      rows_written: EXPECTED_ROWS,
    });
    expect(targetCounts(example.targetPath())).toEqual({ rows: EXPECTED_ROWS, distinctIds: EXPECTED_ROWS });
  });

  it('--journal naming a second, new journal (a fork): already-complete, mutated false', async () => {
    const { example } = await committedOnce();
    const second = await run(example, '--journal', `sqlite://${join(example.dir, 'other-journal.db')}`);
    expect(second.exitCode, second.stderr).toBe(0);
    const outcome = JSON.parse(second.stdout);
    expect(outcome).toMatchObject({ status: 'already-complete', mutated: false });
    // The run says where its journal is, and that a local file is not durable.
    expect(outcome.journal).toMatchObject({ kind: 'sqlite', durable: false });
    expect(outcome.journal.location).toContain('other-journal.db');
    expect(targetCounts(example.targetPath())).toEqual({ rows: EXPECTED_ROWS, distinctIds: EXPECTED_ROWS });
  });

  it('WAL and shared memory deleted while a worker is parked: one write, one mutated:true, the other FENCED', async () => {
    const example = exampleCopy();
    const journal = join(example.dir, 'data/state/journal.db');
    const first = parkedRun(example, PARK_POINT);
    await first.parked;
    expect(existsSync(`${journal}-wal`)).toBe(true);
    rmSync(`${journal}-wal`);
    rmSync(`${journal}-shm`, { force: true });
    const second = await run(example);
    expect(second.exitCode, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ status: 'committed', mutated: true });
    first.child.kill('SIGUSR2');
    const resumed = await first.child;
    expect(resumed.exitCode).toBe(EXIT_CODES.DPONE_TARGET_COMMIT_FENCED);
    expect(String(resumed.stdout)).not.toContain('"mutated":true');
    expect(targetCounts(example.targetPath())).toEqual({ rows: EXPECTED_ROWS, distinctIds: EXPECTED_ROWS });
  });

  it('inspect and plan leave an emptied journal file at 0 bytes and create nothing beside it', async () => {
    const { example, journal } = await committedOnce();
    const id = JSON.parse(
      (await dpone(['identity', '--workload', example.workload, '--json'], { cwd: example.dir })).stdout,
    ).operation_id as string;
    truncateSync(journal, 0);
    for (const command of ['inspect', 'plan']) {
      const result = await dpone(
        ['recovery', 'target-commit', command, '--operation-id', id, '--journal', `sqlite://${journal}`],
        { cwd: example.dir },
      );
      expect(result.exitCode).toBe(EXIT_CODES.DPONE_TARGET_COMMIT_JOURNAL_UNAVAILABLE);
      expect(statSync(journal).size).toBe(0);
      expect([existsSync(`${journal}-wal`), existsSync(`${journal}-shm`)]).toEqual([false, false]);
    }
  });
});

/** Whether this machine can mount a read-only view in a private namespace (Linux, unshare). */
function canMountReadOnly(): boolean {
  try {
    execSync('unshare -rm true', { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const readOnlyMedia = canMountReadOnly();
if (!readOnlyMedia) console.warn('UNVERIFIED inspect on read-only media: unshare -rm is not available here');

describe('recovery inspect and plan on a journal copied to read-only media', () => {
  it.skipIf(!readOnlyMedia)(
    'read the copy through a read-only bind mount; the copy’s bytes are unchanged',
    async () => {
      const { example, journal } = await committedOnce();
      const id = JSON.parse(
        (await dpone(['identity', '--workload', example.workload, '--json'], { cwd: example.dir })).stdout,
      ).operation_id as string;
      const media = join(example.dir, 'media');
      const mount = join(example.dir, 'mnt');
      mkdirSync(media);
      mkdirSync(mount);
      copyFileSync(journal, join(media, 'journal.db'));
      const before = fileDigest(join(media, 'journal.db'));
      for (const command of ['inspect', 'plan']) {
        // A private mount namespace: the bind mount is read-only and vanishes with the command.
        const script =
          `mount --bind -o ro ${media} ${mount} && exec ${process.execPath} ${BIN} recovery target-commit ` +
          `${command} --operation-id ${id} --journal sqlite://${join(mount, 'journal.db')} --json`;
        const result = await execa('unshare', ['-rm', 'sh', '-c', script], { reject: false });
        expect(result.exitCode, result.stderr).toBe(0);
        expect(JSON.parse(result.stdout)).toMatchObject({ operation_id: id });
        if (command === 'inspect') expect(JSON.parse(result.stdout).entry.state).toBe('COMPLETE');
      }
      expect(fileDigest(join(media, 'journal.db'))).toBe(before);
      expect([existsSync(join(media, 'journal.db-wal')), existsSync(join(media, 'journal.db-shm'))]).toEqual([
        false,
        false,
      ]);
    },
  );
});

describe('a fence missing where the journal says it was prepared', () => {
  it('stops the run with DIVERGED (exit 29, no journal change); inspect explains it, plan recommends nothing', async () => {
    const example = exampleCopy();
    const journal = join(example.dir, 'data/state/journal.db');
    // A short lease, so the dead worker's lease has expired when the retry comes.
    const workload = example.variant('short-lease.yaml', (text) =>
      text.replace('lease_ttl_ms: 30000', 'lease_ttl_ms: 1'),
    );
    const first = parkedRun(example, 'cas:PREPARING->PREPARED:after', { workload });
    await first.parked;
    first.child.kill('SIGKILL');
    await first.child;
    const target = new DatabaseSync(example.targetPath());
    target.exec('DELETE FROM _dpone_fence');
    target.close();
    const before = journalRows(journal);
    const second = await dpone(['run', '--workload', workload, '--json'], { cwd: example.dir });
    expect(second.exitCode, second.stderr).toBe(EXIT_CODES.DPONE_TARGET_COMMIT_DIVERGED);
    expect(journalRows(journal)).toEqual(before);
    const id = JSON.parse(
      (await dpone(['identity', '--workload', workload, '--json'], { cwd: example.dir })).stdout,
    ).operation_id as string;
    const inspect = await dpone(
      ['recovery', 'target-commit', 'inspect', '--operation-id', id, '--route', workload, '--json'],
      { cwd: example.dir },
    );
    expect(inspect.exitCode, inspect.stderr).toBe(EXIT_CODES.DPONE_TARGET_COMMIT_DIVERGED);
    const view = JSON.parse(inspect.stdout);
    expect(view.entry.state).toBe('PREPARED');
    expect(view.assessment).toMatchObject({ kind: 'inconsistent' });
    expect(view.assessment.implication).toMatch(/holds no fence.*sqlite:main\._dpone_fence/);
    const plan = JSON.parse(
      (
        await dpone(
          ['recovery', 'target-commit', 'plan', '--operation-id', id, '--route', workload, '--json'],
          {
            cwd: example.dir,
          },
        )
      ).stdout,
    );
    expect([plan.recommended, plan.assessment.kind]).toEqual([null, 'inconsistent']);
    expect(plan.assessment.implication).toMatch(/Next: restore the fence/);
    expect(journalRows(journal)).toEqual(before);
    expect(targetCounts(example.targetPath()).rows).toBe(0);
  });
});
