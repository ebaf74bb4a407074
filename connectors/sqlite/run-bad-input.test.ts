import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { SqliteJournal } from '../../../connectors/sqlite/journal/sqlite-journal.ts';
import type { ExampleCopy } from './example-workload.test-support.ts';
import { EXPECTED_ROWS, dpone, exampleCopy, targetCounts } from './example-workload.test-support.ts';

/**
 * Issue 14's table, row by row, through the real CLI: each bad input is refused with a stable
 * code (non-retry where a retry cannot help), names the field and its file:line, and loses nothing.
 */

interface Refusal {
  readonly exitCode: number;
  readonly error: { code: string; field?: string; location?: string; message: string };
}

async function runJson(example: ExampleCopy, workload: string, extra: readonly string[] = []) {
  const result = await dpone(['run', '--workload', workload, '--json', ...extra], { cwd: example.dir });
  const line = result.stderr.split('\n').find((candidate) => candidate.startsWith('{'));
  return { ...result, error: line ? (JSON.parse(line) as Refusal['error'] & { error?: never }) : null };
}

async function refused(
  example: ExampleCopy,
  workload: string,
  extra: readonly string[] = [],
): Promise<Refusal> {
  const result = await runJson(example, workload, extra);
  const parsed = result.error as unknown as { error: Refusal['error'] } | null;
  expect(parsed, result.stderr).not.toBeNull();
  return { exitCode: result.exitCode ?? -1, error: parsed!.error };
}

function lineOf(file: string, needle: string): number {
  return (
    readFileSync(file, 'utf8')
      .split('\n')
      .findIndex((line) => line.includes(needle)) + 1
  );
}

function journalHistory(example: ExampleCopy): string[] {
  const db = new DatabaseSync(join(example.dir, 'data/state/journal.db'), { readOnly: true });
  try {
    const rows = db.prepare('SELECT evidence FROM dpone_commit_journal_history ORDER BY version').all();
    return rows.map((row) => (JSON.parse(String(row.evidence)) as { reason: string }).reason);
  } finally {
    db.close();
  }
}

describe('issue 14, rows 1, 2, 4, 12: the workload is refused before anything runs (exit 2, file:line)', () => {
  it.each([
    [
      '1: a SQLite TEMP table',
      'table: events',
      'table: temp.events',
      'target.table',
      /TEMP schema: rows written there vanish/,
    ],
    [
      '2: a lease TTL the journal could not read back',
      'lease_ttl_ms: 30000',
      'lease_ttl_ms: 1e16',
      'execution.lease_ttl_ms',
      /from 1 to 86400000/,
    ],
    [
      '12: the source table as target',
      "url: 'sqlite:data/target.db'\n  table: events",
      "url: 'sqlite:./data/source.db'\n  table: ORDERS",
      'target.table',
      /the source table itself/,
    ],
    [
      '8: an ESC in an identity value',
      'workload_id: orders_to_events',
      'workload_id: "orders\\e]0;pwned\\a"',
      'identity.workload_id',
      /control character U\+001B/,
    ],
    [
      '8: a bidi override in the partition value',
      "value: '2026-07-18'",
      'value: "2026-07-18\\u202e"',
      'data.partition.value',
      /U\+202E/,
    ],
    [
      '9: a password in the journal URL',
      '# journal:',
      "journal: 'postgres://dpone:hunter2@db:5432/j'\n#",
      'journal',
      /has a password in its user part/,
    ],
    [
      '9: "Password = x" in a target URL query',
      "url: 'sqlite:data/target.db'",
      "url: 'sqlite:data/target.db?Password = hunter2'",
      'target.url',
      /secret parameter/,
    ],
  ])('row %s', async (_row, from, to, field, message) => {
    const example = exampleCopy();
    const file = example.variant('bad.yaml', (text) => text.replace(from, to));
    const { exitCode, error } = await refused(example, file);
    expect([exitCode, error.code, error.field]).toEqual([2, 'DPONE_INVALID_INPUT', field]);
    expect(error.message).toMatch(message);
    expect(error.message).not.toContain('hunter2');
    // file:line:column of the key at fault: the last line the edit wrote.
    const keyLine = to
      .split('\n')
      .filter((line) => !line.startsWith('#'))
      .at(-1)!;
    expect(error.location).toMatch(new RegExp(`^${file}:${lineOf(file, keyLine)}:\\d+$`));
    // Nothing ran: no journal, no target.
    expect(existsSync(join(example.dir, 'data/state'))).toBe(false);
    expect(existsSync(example.targetPath())).toBe(false);
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

  it('row 4: a state_dir that cannot be created names execution.state_dir at its line', async () => {
    const example = exampleCopy();
    const file = example.variant('state.yaml', (text) =>
      text.replace('state_dir: data/state', 'state_dir: workload.yaml/state'),
    );
    const { exitCode, error } = await refused(example, file);
    expect([exitCode, error.code, error.field]).toEqual([2, 'DPONE_INVALID_INPUT', 'execution.state_dir']);
    expect(error.location).toBe(`${file}:${lineOf(file, 'state_dir:')}:3`);
    expect(error.message).toMatch(/cannot be created \(ENOTDIR\)/);
  });

  it('row 14: identity needs only identity:, intent: and what the intent covers (tables, data:)', async () => {
    const example = exampleCopy();
    const text = readFileSync(example.workload, 'utf8');
    const only = join(example.dir, 'only.yaml');
    // No route, URLs, journal or execution: the tables and data: alone.
    const head = text.slice(0, text.indexOf('route: sqlite'));
    const data = text.slice(text.indexOf('data:'), text.indexOf('# journal:'));
    writeFileSync(only, `${head}source: { table: orders }\ntarget: { table: events }\n${data}`);
    const result = await dpone(['identity', '--workload', only, '--json'], { cwd: example.dir });
    expect(result.exitCode, result.stderr).toBe(0);
    const full = await dpone(['identity', '--workload', example.workload, '--json'], { cwd: example.dir });
    expect(result.stdout).toBe(full.stdout);
    // Without the data the intent digest cannot be computed: refused naming what is missing.
    writeFileSync(only, head);
    const missing = await dpone(['identity', '--workload', only, '--json'], { cwd: example.dir });
    expect([missing.exitCode, JSON.parse(missing.stderr).error.field]).toEqual([2, 'data']);
    // Still strict about what it reads: an unknown top-level key is refused.
    writeFileSync(only, `${head}retries: 3\n`);
    expect((await dpone(['identity', '--workload', only], { cwd: example.dir })).exitCode).toBe(2);
  });
});

describe('issue 14, row 7: a workload file that is not a small regular file', () => {
  it('a 200 MB file is refused at once by its size, exit 2', async () => {
    const example = exampleCopy();
    const big = join(example.dir, 'big.yaml');
    writeFileSync(big, 'identity:\n');
    truncateSync(big, 200 * 1024 * 1024);
    const started = Date.now();
    const { exitCode, error } = await refused(example, big);
    expect([exitCode, error.field]).toEqual([2, '--workload']);
    expect(error.message).toMatch(/is 209715200 bytes; a workload file is at most 1 MiB/);
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it.each([
    ['/dev/zero (endless)', '/dev/zero', /is not a regular file/],
    ['a folder', '.', /is a folder, not a file/],
  ])('%s is refused, exit 2', async (_label, path, message) => {
    const example = exampleCopy();
    const { exitCode, error } = await refused(example, path);
    expect([exitCode, error.field]).toEqual([2, '--workload']);
    expect(error.message).toMatch(message);
  });

  it('a FIFO nobody writes is refused instead of hanging', async () => {
    const example = exampleCopy();
    const fifo = join(example.dir, 'fifo.yaml');
    execFileSync('mkfifo', [fifo]);
    const { exitCode, error } = await refused(example, fifo);
    expect([exitCode, error.message]).toEqual([2, expect.stringMatching(/is not a regular file/)]);
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

  it('same class as row 6: a source table or column that does not exist is exit 32 naming it, every time', async () => {
    const example = exampleCopy();
    const table = example.variant('no-table.yaml', (text) =>
      text.replace('table: orders', 'table: no_such_table'),
    );
    for (let attempt = 0; attempt < 2; attempt++) {
      const { exitCode, error } = await refused(example, table);
      expect([exitCode, error.field]).toEqual([32, 'source.table']);
    }
    // Another operation's workload (its own journal): other columns are another intent.
    const other = exampleCopy();
    const column = other.variant('no-column.yaml', (text) =>
      text.replace('columns: [id, day, amount, region]', 'columns: [id, day, amount, regio]'),
    );
    const { exitCode, error } = await refused(other, column);
    expect([exitCode, error.field, error.message]).toEqual([
      32,
      'data.columns',
      expect.stringContaining('regio'),
    ]);
  });
});

describe('issue 14, rows 8 and 9: free-text flags and the --journal URL', () => {
  it.each([
    ['an ESC in --holder', ['--holder', 'worker\u001b[2J'], '--holder'],
    ['a password in --journal', ['--journal', 'postgres://u:p@ss-hunter2@127.0.0.1:1/j'], '--journal'],
    ['a secret parameter in --journal', ['--journal', 'sqlite:j.db?token=hunter2'], '--journal'],
  ])('%s is refused with exit 2 naming the flag, echoing no secret', async (_label, extra, field) => {
    const example = exampleCopy();
    const { exitCode, error } = await refused(example, example.workload, extra);
    expect([exitCode, error.field]).toEqual([2, field]);
    expect(JSON.stringify(error)).not.toContain('hunter2');
    expect(JSON.stringify(error)).not.toContain('\u001b');
  });

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
