import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../contracts/errors.ts';
import { readFileRow } from '../embedded-files.test-support.ts';
import { EXPECTED_ROWS, dpone, exampleCopy, targetCounts } from './example-workload.test-support.ts';

function journalState(dir: string): { state: string; lease: string | null } {
  return readFileRow(
    join(dir, 'data/state/journal.db'),
    'SELECT state, lease_holder AS lease FROM dpone_commit_journal',
  ) as { state: string; lease: string | null };
}

describe('dpone run refuses an empty partition unless the workload allows one', () => {
  it('a typo in the partition value writes nothing and exits 32; the corrected value is another intent (exit 22, named)', async () => {
    const example = exampleCopy();
    const typo = example.variant('typo.yaml', (text) =>
      text.replace("value: '2026-07-18'", "value: '2026-7-18'"),
    );
    const refused = await dpone(['run', '--workload', typo, '--json'], { cwd: example.dir });
    expect(refused.exitCode).toBe(EXIT_CODES.DPONE_OBJECT_NOT_FOUND);
    expect(refused.stdout).toBe('');
    expect(JSON.parse(refused.stderr).error).toMatchObject({
      code: 'DPONE_OBJECT_NOT_FOUND',
      field: 'data.partition.value',
      hint: expect.stringContaining('allow_empty'),
      state: 'PREPARED',
    });
    expect(journalState(example.dir)).toEqual({ state: 'FAILED_PRE_COMMIT', lease: null });
    const target = example.targetPath();
    expect(existsSync(target) ? targetCounts(target).rows : 0).toBe(0);

    // Same identity, value corrected: the partition is part of the intent (issue 30), so the
    // journal refuses it before any source or target I/O, naming the field; nothing is written.
    const fixed = await dpone(['run', '--workload', example.workload, '--json'], { cwd: example.dir });
    expect(fixed.exitCode).toBe(EXIT_CODES.DPONE_TARGET_COMMIT_INTENT_CONFLICT);
    expect(JSON.parse(fixed.stderr).error).toMatchObject({
      code: 'DPONE_TARGET_COMMIT_INTENT_CONFLICT',
      field: 'data.partition.value',
      message: expect.stringContaining('data.partition.value differs'),
    });
    expect(existsSync(target) ? targetCounts(target).rows : 0).toBe(0);
    // Under a new identity (here a new release) the corrected run is its own operation, written once.
    const renamed = example.variant('renamed.yaml', (text) =>
      text.replace("release_id: '2026.07.1'", "release_id: '2026.07.2'"),
    );
    const committed = await dpone(['run', '--workload', renamed, '--json'], { cwd: example.dir });
    expect(committed.exitCode, committed.stderr).toBe(0);
    expect(JSON.parse(committed.stdout)).toMatchObject({ status: 'committed', rows_written: EXPECTED_ROWS });
    expect(targetCounts(target)).toEqual({ rows: EXPECTED_ROWS, distinctIds: EXPECTED_ROWS });
  });

  it('allow_empty: true commits the empty partition with 0 rows', async () => {
    const example = exampleCopy();
    const empty = example.variant('empty.yaml', (text) =>
      text.replace("value: '2026-07-18'", "value: '1999-01-01'\n    allow_empty: true"),
    );
    const result = await dpone(['run', '--workload', empty, '--json'], { cwd: example.dir });
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'committed', rows_written: 0 });
  });
});
