import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { SqliteJournal } from './journal/sqlite-journal.ts';
import type { ExampleCopy } from '../../src/cli/commands/example-workload.test-support.ts';
import {
  EXPECTED_ROWS,
  exampleCopy,
  expectRefusedBeforeRun,
  lineOf,
  refused,
  runJson,
  targetCounts,
} from '../../src/cli/commands/example-workload.test-support.ts';

/**
 * Issue 14's rows about SQLite's own files and names, through the real CLI on the example workload
 * (src/cli/commands/bad-input.test.ts has the rest of the table): a TEMP table, the source table
 * reached by another name, files that are not SQLite databases. Each is refused with a stable code
 * (non-retry where a retry cannot help), names the field and its file:line, and loses nothing.
 */

function journalHistory(example: ExampleCopy): string[] {
  const db = new DatabaseSync(join(example.dir, 'data/state/journal.db'), { readOnly: true });
  try {
    const rows = db.prepare('SELECT evidence FROM dpone_commit_journal_history ORDER BY version').all();
    return rows.map((row) => (JSON.parse(String(row.evidence)) as { reason: string }).reason);
  } finally {
    db.close();
  }
}

describe('issue 14, rows 1 and 12: the workload is refused before anything runs (exit 2, file:line)', () => {
  it.each([
    [
      '1: a SQLite TEMP table',
      'table: events',
      'table: temp.events',
      'target.table',
      /TEMP schema: rows written there vanish/,
    ],
    [
      '12: the source table as target',
      "url: 'sqlite:data/target.db'\n  table: events",
      "url: 'sqlite:./data/source.db'\n  table: ORDERS",
      'target.table',
      /the source table itself/,
    ],
  ])('row %s', async (_row, from, to, field, message) => {
    await expectRefusedBeforeRun(from, to, field, message);
  });

  it('row 12: the same table reached through a symlink to the source file is refused too', async () => {
    const example = exampleCopy();
    symlinkSync(join(example.dir, 'data/source.db'), join(example.dir, 'data/alias.db'));
    const file = example.variant('alias.yaml', (text) =>
      text.replace(
        "url: 'sqlite:data/target.db'\n  table: events",
        "url: 'sqlite:data/alias.db'\n  table: main.orders",
      ),
    );
    const { exitCode, error } = await refused(example, file);
    expect([exitCode, error.field]).toEqual([2, 'target.table']);
  });
});

describe('issue 14, rows 6 and 11: wrong databases fail with non-retry codes, and never keep the lease', () => {
  it.each([
    [
      'a text file as source',
      "url: 'sqlite:data/source.db'",
      "url: 'sqlite:///etc/passwd'",
      2,
      'source.url',
      /not an SQLite database/,
    ],
    [
      'a folder as target',
      "url: 'sqlite:data/target.db'",
      "url: 'sqlite:///tmp'",
      2,
      'target.url',
      /names a folder/,
    ],
    [
      '/dev/null as target',
      "url: 'sqlite:data/target.db'",
      "url: 'sqlite:///dev/null'",
      2,
      'target.url',
      /device, FIFO or socket/,
    ],
    [
      'a missing source file',
      "url: 'sqlite:data/source.db'",
      "url: 'sqlite:data/nothing.db'",
      32,
      'source.url',
      /names no file/,
    ],
  ])(
    'row 6: %s is a non-retry code naming the field; the XCom says no retry; a second run gets the same',
    async (_label, from, to, code, field, message) => {
      const example = exampleCopy();
      const file = example.variant('wrong.yaml', (text) => text.replace(from, to));
      const xcom = join(example.dir, 'xcom.json');
      const first = await refused(example, file, ['--xcom', xcom]);
      expect([first.exitCode, first.error.field]).toEqual([code, field]);
      expect(first.error.message).toMatch(message);
      expect(first.error.location).toBe(`${file}:${lineOf(file, to.slice(0, 20))}:3`);
      expect(JSON.parse(readFileSync(xcom, 'utf8'))).toMatchObject({ status: 'failed', retryable: false });
      // Row 11: the lease went back with the failure, so an immediate retry is not a CAS conflict (13).
      const second = await refused(example, file);
      expect(second.exitCode).toBe(code);
      expect(journalHistory(example)).toContain('lease:released-before-mutation');
      expect(existsSync(example.targetPath())).toBe(false);
    },
  );

  it('row 11: a target that fails before any mutation (exit 11) hands its lease back: the fixed retry commits at once', async () => {
    const example = exampleCopy();
    // A file that claims to be SQLite but is not: opening it fails after the lease was taken.
    mkdirSync(join(example.dir, 'data'), { recursive: true });
    writeFileSync(
      example.targetPath(),
      Buffer.concat([Buffer.from('SQLite format 3\0'), Buffer.alloc(4096, 7)]),
    );
    const failed = await refused(example, example.workload);
    expect(failed.exitCode).toBe(11);
    writeFileSync(example.targetPath(), '');
    const retry = await runJson(example, example.workload);
    expect(retry.exitCode, retry.stderr).toBe(0);
    expect(JSON.parse(retry.stdout)).toMatchObject({ status: 'committed', rows_written: EXPECTED_ROWS });
    expect(targetCounts(example.targetPath()).rows).toBe(EXPECTED_ROWS);
    expect(journalHistory(example)).toEqual(
      expect.arrayContaining(['lease:released-before-mutation', 'retry:after-pre-commit-failure']),
    );
  });
});

describe('issue 14, row 9: the --journal file', () => {
  it('an existing journal file that is not SQLite is exit 2 naming --journal, and stays as it was', async () => {
    const example = exampleCopy();
    const notes = join(example.dir, 'notes.txt');
    writeFileSync(notes, 'not a journal\n');
    const { exitCode, error } = await refused(example, example.workload, ['--journal', `sqlite://${notes}`]);
    expect([exitCode, error.field]).toEqual([2, '--journal']);
    expect(readFileSync(notes, 'utf8')).toBe('not a journal\n');
    await using journal = await SqliteJournal.open(join(example.dir, 'fresh.db'));
    expect(await journal.list()).toEqual([]);
  });
});
