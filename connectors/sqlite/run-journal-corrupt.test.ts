import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../src/contracts/errors.ts';
import {
  EXPECTED_ROWS,
  dpone,
  exampleCopy,
  targetCounts,
} from '../../src/cli/commands/example-workload.test-support.ts';

/**
 * Issue 33's corruption cases through the real CLI, on the example workload's default journal (no
 * `--journal`): after a first run committed, the journal's header or a page is damaged. The next
 * run exits 19 JOURNAL_CORRUPT naming the file, never "locked" (10), an intent conflict (22), a
 * divergence (29) or bad `--journal` input (2), and never writes the target again.
 */
function errorOf(stderr: string): { code?: string; message?: string; field?: string } {
  const line = stderr.split('\n').find((l) => l.trim().startsWith('{'));
  return line ? ((JSON.parse(line) as { error?: object }).error ?? {}) : {};
}

async function damagedAfterCommit(damage: (bytes: Buffer) => void) {
  const example = exampleCopy();
  const first = await dpone(['run', '--workload', example.workload, '--json'], { cwd: example.dir });
  expect(first.exitCode, first.stderr).toBe(0);
  const journal = join(example.dir, 'data/state/journal.db');
  const bytes = readFileSync(journal);
  damage(bytes);
  writeFileSync(journal, bytes);
  const again = await dpone(['run', '--workload', example.workload, '--json'], { cwd: example.dir });
  return { example, journal, again, error: errorOf(again.stderr) };
}

describe('a damaged journal is corrupt, never a conflict', () => {
  it('a flipped header byte: exit 19 naming the file, not "--journal names a file…" (no --journal was given)', async () => {
    const { example, journal, again, error } = await damagedAfterCommit((bytes) => {
      bytes[3] = bytes[3]! ^ 0x20; // "SQLite format 3": the header's magic
    });
    expect(again.exitCode).toBe(EXIT_CODES.DPONE_TARGET_COMMIT_JOURNAL_CORRUPT);
    expect(error.code).toBe('DPONE_TARGET_COMMIT_JOURNAL_CORRUPT');
    expect(error.message).toContain(journal);
    expect(error.message).not.toMatch(/names a file that is not/);
    expect(targetCounts(example.targetPath())).toEqual({ rows: EXPECTED_ROWS, distinctIds: EXPECTED_ROWS });
  });

  it('its pages overwritten: exit 19 (SQLITE_CORRUPT), and the target keeps its rows once', async () => {
    const { example, again, error } = await damagedAfterCommit((bytes) => {
      for (let offset = 4096; offset < bytes.length; offset++) bytes[offset] = 0xa5;
    });
    expect(again.exitCode).toBe(EXIT_CODES.DPONE_TARGET_COMMIT_JOURNAL_CORRUPT);
    expect(error.message).toMatch(/its bytes are damaged \((SQLITE_CORRUPT|SQLITE_NOTADB|quick_check)\)/);
    expect(targetCounts(example.targetPath())).toEqual({ rows: EXPECTED_ROWS, distinctIds: EXPECTED_ROWS });
  });
});
