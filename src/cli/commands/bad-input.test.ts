import { execFileSync } from 'node:child_process';
import { readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { embeddedEngine, serverJournalEngine } from '../engine-roles.ts';
import {
  dpone,
  exampleCopy,
  expectRefusedBeforeRun,
  lineOf,
  refused,
} from './example-workload.test-support.ts';

/**
 * Issue 14's table, row by row, through the real CLI: each bad input is refused with a stable
 * code (non-retry where a retry cannot help), names the field and its file:line, and loses nothing.
 * The example runs the embedded route; the rows about its engine's own files and names (a TEMP
 * table, a wrong database file, the source reached by another name) are in that engine's folder
 * (run-bad-input.test.ts there).
 */

/** The example's engine (its endpoints' URL scheme) and the first engine whose journal is a server's. */
const EMBEDDED = embeddedEngine()[0];
const SERVER = serverJournalEngine()[0];

describe('issue 14, rows 2, 4, 8, 9, 14: the workload is refused before anything runs (exit 2, file:line)', () => {
  it.each([
    [
      '2: a lease TTL the journal could not read back',
      'lease_ttl_ms: 30000',
      'lease_ttl_ms: 1e16',
      'execution.lease_ttl_ms',
      /from 1 to 86400000/,
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
      `journal: '${SERVER}://dpone:hunter2@db:5432/j'\n#`,
      'journal',
      /has a password in its user part/,
    ],
    [
      '9: "Password = x" in a target URL query',
      `url: '${EMBEDDED}:data/target.db'`,
      `url: '${EMBEDDED}:data/target.db?Password = hunter2'`,
      'target.url',
      /secret parameter/,
    ],
  ])('row %s', async (_row, from, to, field, message) => {
    await expectRefusedBeforeRun(from, to, field, message);
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
    const head = text.slice(0, text.indexOf('route:'));
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

describe('issue 14, row 6: a source table or column that does not exist', () => {
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
    ['a password in --journal', ['--journal', `${SERVER}://u:p@ss-hunter2@127.0.0.1:1/j`], '--journal'],
    ['a secret parameter in --journal', ['--journal', `${EMBEDDED}:j.db?token=hunter2`], '--journal'],
  ])('%s is refused with exit 2 naming the flag, echoing no secret', async (_label, extra, field) => {
    const example = exampleCopy();
    const { exitCode, error } = await refused(example, example.workload, extra);
    expect([exitCode, error.field]).toEqual([2, field]);
    expect(JSON.stringify(error)).not.toContain('hunter2');
    expect(JSON.stringify(error)).not.toContain('\u001b');
  });
});
