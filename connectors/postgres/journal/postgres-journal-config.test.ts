import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../../src/contracts/errors.ts';
import { parseJournalUrl } from './postgres-journal-config.ts';

describe('a PostgreSQL journal URL read by the journal', () => {
  it('reads the pool, the schema and what each transaction pins; the env password wins over the URL', () => {
    expect(
      parseJournalUrl(
        'postgresql://u:inurl@db.example:6543/j?schema=t_1&connect_timeout_ms=1500&query_timeout_ms=2500&synchronous_commit=remote_write',
        'fromenv',
      ),
    ).toEqual({
      pool: {
        host: 'db.example',
        port: 6543,
        user: 'u',
        password: 'fromenv',
        database: 'j',
        connectionTimeoutMillis: 1500,
        query_timeout: 2500,
        max: 4,
        application_name: 'dpone-journal',
      },
      schema: 't_1',
      pinned: { field: '--journal', timeoutMs: 2500, values: false, durableCommit: 'remote_write' },
    });
    expect(parseJournalUrl('postgres://h/j')).toEqual({
      pool: {
        host: 'h',
        port: 5432,
        user: 'postgres',
        database: 'j',
        connectionTimeoutMillis: 5000,
        query_timeout: 10_000,
        max: 4,
        application_name: 'dpone-journal',
      },
      pinned: { field: '--journal', timeoutMs: 10_000, values: false, durableCommit: 'on' },
    });
  });

  it.each([
    ['not a URL', 'the PostgreSQL journal URL is not a URL'],
    ['mysql://u:s3cret@h/j', 'the PostgreSQL journal URL is not postgres://'],
    ['postgres://u:s3cret@h/', 'the PostgreSQL journal URL needs a host and a database'],
    ['postgres://u:s3cret@h/j?query_timeout_ms=0', 'the PostgreSQL journal URL has a bad query_timeout_ms'],
    [
      'postgres://u:s3cret@h/j?connect_timeout_ms=x',
      'the PostgreSQL journal URL has a bad connect_timeout_ms',
    ],
    [
      'postgres://u:s3cret@h/j?schema=X',
      'the PostgreSQL journal URL has a bad schema (lower-case letters, digits, _)',
    ],
    [
      'postgres://u:s3cret@h/j?synchronous_commit=off',
      'the PostgreSQL journal URL has a bad synchronous_commit (on, remote_write or remote_apply: a journal write must be durable)',
    ],
  ])(
    'refuses %s as INVALID_INPUT naming --journal, in its own words, never echoing the URL',
    (url, message) => {
      let thrown: unknown;
      try {
        parseJournalUrl(url);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toMatchObject({
        code: ERROR_CODES.INVALID_INPUT,
        message,
        fields: { field: '--journal' },
      });
    },
  );
});
