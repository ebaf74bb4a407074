import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../../src/contracts/errors.ts';
import { urlPasswordProblem } from '../../../src/contracts/redact-url.ts';
import { journalFilePath, openJournal } from '../../../src/cli/journal-url.ts';
import { expectRefusedJournalUrl } from '../../../src/cli/journal-url.test-support.ts';
import { FILE_URL_SCHEMES } from '../../../src/cli/route-names.ts';
import { dponeRejection } from '../../../testing/journal-conformance-kit.ts';
import { SqliteJournal } from './sqlite-journal.ts';

/** The SQLite journal's `--journal` URLs (sqlite-journal-url.ts), opened through the CLI's journal opener. */
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'dpone-sqlite-journal-url-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('openJournal of a SQLite journal URL', () => {
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

  it('a bad SQLite URL is INVALID_INPUT naming --journal, never echoing a password', async () => {
    for (const url of [
      'sqlite://host/x.db',
      'sqlite:',
      'sqlite:///tmp/dir/',
      'sqlite:///tmp/j.db?token=hunter2-secret',
    ])
      await expectRefusedJournalUrl(url, dir);
  });

  it('a SQLite path that cannot be opened is JOURNAL_UNAVAILABLE', async () => {
    const error = await dponeRejection(
      openJournal(`sqlite://${join(dir, 'missing', 'j.db')}`, { cwd: dir, env: {} }),
    );
    expect(error.code).toBe(ERROR_CODES.JOURNAL_UNAVAILABLE);
  });

  it('a SQLite URL is a file URL: only its query is read for a password, its `//` holds a path', () => {
    expect(FILE_URL_SCHEMES).toEqual(['sqlite']);
    expect(urlPasswordProblem('sqlite://dir:x@y/j.db', FILE_URL_SCHEMES)).toBeNull();
    expect(urlPasswordProblem('sqlite:j.db?password=p', FILE_URL_SCHEMES)).toMatch(/secret parameter/);
    expect(urlPasswordProblem('sqlite://dir:x@y/j.db')).toMatch(/password in its user part/);
    expect(urlPasswordProblem('server://u:p@h/db', FILE_URL_SCHEMES)).toMatch(/password in its user part/);
  });
});
