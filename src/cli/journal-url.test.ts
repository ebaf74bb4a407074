import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DponeError, ERROR_CODES } from '../contracts/errors.ts';
import { redactUrl, urlPasswordProblem } from '../contracts/redact-url.ts';
import { MemoryJournal } from '../adapters/journal/memory/memory-journal.ts';
import { SqliteJournal } from '../../connectors/sqlite/journal/sqlite-journal.ts';
import { journalFilePath, openJournal } from './journal-url.ts';
import { FILE_URL_SCHEMES } from './route-names.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dpone-journal-url-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function failure(promise: Promise<unknown>): Promise<DponeError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DponeError);
  return error as DponeError;
}

describe('openJournal', () => {
  it('opens sqlite:///absolute and sqlite:relative (against cwd) as one durable file', async () => {
    const path = join(dir, 'j.db');
    {
      await using journal = await openJournal(`sqlite://${path}`, { cwd: '/', env: {} });
      expect(journal).toBeInstanceOf(SqliteJournal);
      await journal.createIntent({
        operationId: 'op',
        intentDigest: 'd',
        metadata: { workload_id: 'w', target_identity: 't' },
        nowMs: 1,
      });
    }
    await using again = await openJournal('sqlite:j.db', { cwd: dir, env: {} });
    expect(await again.list()).toEqual(['op']);
    expect(journalFilePath('sqlite:sub/j%20x.db', '/base')).toBe('/base/sub/j x.db');
  });

  it('memory: only under the test runner or when forced, because it is not durable', async () => {
    await using journal = await openJournal('memory:', { cwd: dir, env: { VITEST: 'true' } });
    expect(journal).toBeInstanceOf(MemoryJournal);
    const refused = await failure(openJournal('memory:', { cwd: dir, env: {} }));
    expect([refused.code, refused.fields.field]).toEqual([ERROR_CODES.INVALID_INPUT, '--journal']);
    await using forced = await openJournal('memory:', { cwd: dir, env: { DPONE_ALLOW_MEMORY_JOURNAL: '1' } });
    expect(forced).toBeInstanceOf(MemoryJournal);
  });

  it('a bad URL is INVALID_INPUT naming --journal, never echoing a password', async () => {
    for (const url of [
      'ftp://u:hunter2-secret@h/x',
      'sqlite://host/x.db',
      'sqlite:',
      'sqlite:///tmp/dir/',
      'postgres://u:hunter2-secret@/db',
      'mssql://u:hunter2-secret@',
      'no scheme at all',
      // One policy for every URL: a password is refused even where the driver would take it.
      'postgres://u:hunter2-secret@127.0.0.1:1/journal',
      'postgres://u:hunter2/secret@127.0.0.1:1/journal',
      'postgres://u@127.0.0.1:1/journal?password=hunter2-secret',
      'mssql://h:1433/journal?Password = hunter2-secret',
      'sqlite:///tmp/j.db?token=hunter2-secret',
    ]) {
      const error = await failure(openJournal(url, { cwd: dir, env: {} }));
      expect([error.code, error.fields.field], url).toEqual([ERROR_CODES.INVALID_INPUT, '--journal']);
      expect(JSON.stringify(error.toJSON())).not.toContain('hunter2-secret');
    }
  });

  it('an unreachable SQL Server (real driver, closed port) is JOURNAL_UNAVAILABLE without credentials', async () => {
    const url = 'mssql://sa@127.0.0.1:1/journal?encrypt=false';
    const error = await failure(
      openJournal(url, { cwd: dir, env: { DPONE_JOURNAL_PASSWORD: 'hunter2-secret' } }),
    );
    expect(error.code).toBe(ERROR_CODES.JOURNAL_UNAVAILABLE);
    // The MSSQL journal itself answered (reached through its engine entry, connectors/mssql/engine.ts),
    // not the generic "could not be opened" of an adapter that failed to load.
    expect(error.message).toContain('MSSQL commit journal');
    expect(`${error.message} ${JSON.stringify(error)}`).not.toMatch(/hunter2-secret|127\.0\.0\.1|sa@/);
  });

  it('postgres:// loads the PostgreSQL adapter lazily; a closed port is its JOURNAL_UNAVAILABLE', async () => {
    const url = 'postgres://u@127.0.0.1:1/journal';
    const error = await failure(
      openJournal(url, { cwd: dir, env: { DPONE_JOURNAL_PASSWORD: 'hunter2-secret' } }),
    );
    expect(error.code).toBe(ERROR_CODES.JOURNAL_UNAVAILABLE);
    // The PostgreSQL journal itself answered (reached through its engine entry,
    // connectors/postgres/engine.ts), not the generic answer of an adapter that failed without a code.
    expect(error.message).toContain('PostgreSQL commit journal');
    expect(`${error.message} ${JSON.stringify(error)}`).not.toContain('hunter2-secret');
  });

  it('a SQLite path that cannot be opened is JOURNAL_UNAVAILABLE', async () => {
    const error = await failure(
      openJournal(`sqlite://${join(dir, 'missing', 'j.db')}`, { cwd: dir, env: {} }),
    );
    expect(error.code).toBe(ERROR_CODES.JOURNAL_UNAVAILABLE);
  });
});

describe('redactUrl', () => {
  it('hides userinfo passwords and secret query parameters, parseable or not', () => {
    expect(redactUrl('postgres://u:s3cret@h:5432/db?password=x&sslmode=require')).toBe(
      'postgres://u:***@h:5432/db?password=***&sslmode=require',
    );
    expect(redactUrl('mssql://sa:p%40ss@h/db')).toBe('mssql://sa:***@h/db');
    expect(redactUrl('not a url //u:pw@x?pwd=y')).toBe('not a url //u:***@x?pwd=***');
    expect(redactUrl('sqlite:///tmp/j.db')).toBe('sqlite:///tmp/j.db');
  });

  it.each([
    ['an unencoded @ in the password', 'postgres://u:p@ss-hunter2@h/db', 'postgres://u:***@h/db'],
    ['a / in the password (not a URL any more)', 'postgres://u:pa/hunter2@h/db', 'postgres://u:***@h/db'],
    ['a # in the password', 'postgres://u:p#hunter2@h/db', 'postgres://u:***@h/db'],
    ['a ? in the password', 'postgres://u:p?hunter2@h/db', 'postgres://u:***@h/db'],
    [
      '"Password = x" with spaces in a query',
      'mssql://h/db?Password = hunter2 x',
      'mssql://h/db?Password+=***',
    ],
    [
      'an ADO string with spaces',
      'Server=h;Password = hunter2 x;Database=d',
      'Server=h;Password = ***;Database=d',
    ],
    [
      'an ADO string with a quoted value',
      "Server=h;Pwd='hunter2;x';Database=d",
      'Server=h;Pwd=***;Database=d',
    ],
    ['an empty user', 'postgres://:hunter2@h/db', 'postgres://:***@h/db'],
    ['a token parameter', 'http://h:8474/?token=hunter2', 'http://h:8474/?token=***'],
  ])('hides the password of %s', (_label, url, redacted) => {
    expect(redactUrl(url)).toBe(redacted);
    expect(redactUrl(url)).not.toContain('hunter2');
  });

  it('reads only the query of a file URL, whose `//` holds a path (the schemes the caller passes)', () => {
    expect(FILE_URL_SCHEMES).toEqual(['sqlite']);
    expect(urlPasswordProblem('sqlite://dir:x@y/j.db', FILE_URL_SCHEMES)).toBeNull();
    expect(urlPasswordProblem('sqlite:j.db?password=p', FILE_URL_SCHEMES)).toMatch(/secret parameter/);
    expect(urlPasswordProblem('sqlite://dir:x@y/j.db')).toMatch(/password in its user part/);
    expect(urlPasswordProblem('postgres://u:p@h/db', FILE_URL_SCHEMES)).toMatch(/password in its user part/);
  });

  it('leaves URLs without a password as they are, an @ in a query included', () => {
    for (const url of ['postgres://u@h:5432/db?application_name=a@b', 'sqlite:data/j.db', 'mssql://sa@h/db'])
      expect(redactUrl(url)).toBe(url);
  });
});
