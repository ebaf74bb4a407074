import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../contracts/errors.ts';
import { readFileRow } from '../embedded-files.test-support.ts';
import { embeddedJournalUrl } from '../embedded-journal.test-support.ts';
import {
  EXPECTED_ROWS,
  dpone,
  exampleCopy,
  fileDigest,
  runJson,
  targetCounts,
} from './example-workload.test-support.ts';

function journalVersion(dir: string): number {
  return Number(
    readFileRow(join(dir, 'data/state/journal.db'), 'SELECT MAX(version) AS v FROM dpone_commit_journal').v,
  );
}

describe('dpone run (real CLI process, the embedded route)', () => {
  const example = exampleCopy();

  it('commits once, then returns already-complete without a second mutation', async () => {
    const first = await runJson(example, example.workload);
    expect(first.stderr).toBe('');
    expect(first.exitCode).toBe(0);
    const outcome = JSON.parse(first.stdout);
    expect(outcome).toMatchObject({
      status: 'committed',
      state: 'COMPLETE',
      rows_written: EXPECTED_ROWS,
      mutated: true,
    });
    expect(outcome.operation_id).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(outcome.fence_epoch).toBeGreaterThanOrEqual(1);

    const second = await runJson(example, example.workload);
    expect(second.exitCode).toBe(0);
    expect(JSON.parse(second.stdout)).toEqual({ ...outcome, status: 'already-complete', mutated: false });
    // No trust policy beside the workload: the run must not claim protection.
    expect(outcome).toMatchObject({
      protection: 'legacy',
      protection_reason: expect.stringMatching(/no trust policy/),
    });

    // Counted from the target's own rows: the table has no unique key, so a replay would show.
    expect(targetCounts(example.targetPath())).toEqual({ rows: EXPECTED_ROWS, distinctIds: EXPECTED_ROWS });
    const checkpoint = JSON.parse(
      readFileSync(
        join(example.dir, 'data/state/checkpoints', `${outcome.operation_id.slice(7)}.json`),
        'utf8',
      ),
    );
    expect(checkpoint).toMatchObject({ operation_id: outcome.operation_id, rows_written: EXPECTED_ROWS });
  });

  it('refuses the same identity with another intent before touching the target', async () => {
    const target = fileDigest(example.targetPath());
    const version = journalVersion(example.dir);
    const conflicting = example.variant('conflict.yaml', (text) =>
      text.replace("schema_fingerprint: 'schema:v1'", "schema_fingerprint: 'schema:v2'"),
    );
    const result = await runJson(example, conflicting);
    expect(result.exitCode).toBe(EXIT_CODES.DPONE_TARGET_COMMIT_INTENT_CONFLICT);
    expect(result.stdout).toBe('');
    expect(JSON.parse(result.stderr).error.code).toBe('DPONE_TARGET_COMMIT_INTENT_CONFLICT');
    expect(fileDigest(example.targetPath())).toBe(target);
    expect(journalVersion(example.dir)).toBe(version);
    expect(targetCounts(example.targetPath()).rows).toBe(EXPECTED_ROWS);
  });

  it('writes the XCom when asked, and a failed XCom write changes neither outcome nor exit code', async () => {
    const xcom = join(example.dir, 'airflow/xcom/return.json');
    const written = await dpone(['run', '--workload', example.workload], {
      cwd: example.dir,
      env: { DPONE_XCOM_PATH: xcom },
    });
    expect(written.exitCode).toBe(0);
    expect(JSON.parse(readFileSync(xcom, 'utf8'))).toMatchObject({
      status: 'already-complete',
      mutated: false,
    });

    writeFileSync(join(example.dir, 'not-a-folder'), '');
    const lost = await runJson(example, example.workload, [
      '--xcom',
      join(example.dir, 'not-a-folder/return.json'),
    ]);
    expect(lost.exitCode).toBe(0);
    expect(JSON.parse(lost.stdout).status).toBe('already-complete');
    expect(lost.stderr).toMatch(/secondary failure/);
  });

  it('writes a failure XCom saying whether a retry is safe', async () => {
    const xcom = join(example.dir, 'conflict-xcom.json');
    const conflicting = example.variant('conflict-xcom.yaml', (text) =>
      text.replace("pack_fingerprint: 'pack:3f1c9e'", "pack_fingerprint: 'pack:other'"),
    );
    const result = await dpone(['run', '--workload', conflicting, '--xcom', xcom], { cwd: example.dir });
    expect(result.exitCode).toBe(EXIT_CODES.DPONE_TARGET_COMMIT_INTENT_CONFLICT);
    expect(JSON.parse(readFileSync(xcom, 'utf8'))).toMatchObject({
      status: 'failed',
      code: 'DPONE_TARGET_COMMIT_INTENT_CONFLICT',
      retryable: false,
    });
  });

  it('exits JOURNAL_UNAVAILABLE without opening the target when the journal cannot be opened', async () => {
    const fresh = exampleCopy();
    const result = await dpone(
      [
        'run',
        '--workload',
        fresh.workload,
        '--journal',
        embeddedJournalUrl(join(fresh.dir, 'missing-folder/journal.db')),
      ],
      { cwd: fresh.dir },
    );
    expect(result.exitCode).toBe(EXIT_CODES.DPONE_TARGET_COMMIT_JOURNAL_UNAVAILABLE);
    expect(existsSync(fresh.targetPath())).toBe(false);
  });

  it('leaves COMMITTED_INCOMPLETE when the checkpoint cannot be written, and a retry completes without mutating', async () => {
    const fresh = exampleCopy();
    mkdirSync(join(fresh.dir, 'data/state'), { recursive: true });
    writeFileSync(join(fresh.dir, 'data/state/checkpoints'), 'a file where the folder should be');
    const first = await runJson(fresh, fresh.workload);
    expect(first.exitCode).toBe(EXIT_CODES.DPONE_TARGET_COMMITTED_INCOMPLETE);
    expect(JSON.parse(first.stderr).error).toMatchObject({ state: 'COMMITTED_INCOMPLETE' });
    expect(targetCounts(fresh.targetPath()).rows).toBe(EXPECTED_ROWS);

    rmSync(join(fresh.dir, 'data/state/checkpoints'));
    const retry = await runJson(fresh, fresh.workload);
    expect(retry.exitCode).toBe(0);
    expect(JSON.parse(retry.stdout)).toMatchObject({
      state: 'COMPLETE',
      mutated: false,
      rows_written: EXPECTED_ROWS,
    });
    expect(targetCounts(fresh.targetPath())).toEqual({ rows: EXPECTED_ROWS, distinctIds: EXPECTED_ROWS });
  });

  it('refuses a bad workload with exit 2 and an unknown flag with exit 2', async () => {
    const bad = example.variant('bad.yaml', (text) =>
      text.replace('  workload_id: orders_to_events', '  workload_id: orders_to_events\n  try_number: 4'),
    );
    const refused = await dpone(['run', '--workload', bad], { cwd: example.dir });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toMatch(new RegExp(`${bad}:\\d+:3`));
    const flag = await dpone(['run', '--workload', example.workload, '--retries', '3'], { cwd: example.dir });
    expect(flag.exitCode).toBe(2);
    expect(flag.stderr).toContain('--retries');
  });
});
