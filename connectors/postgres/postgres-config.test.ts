import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/contracts/errors.ts';
import { parsePostgresUrl, quoteTable } from './postgres-config.ts';

describe('postgres connector config', () => {
  it('reads host, port, database, timeouts and schema; the env password wins over the URL', () => {
    const config = parsePostgresUrl(
      'postgres://u:inurl@db.example:6543/app?schema=c_1&connect_timeout_ms=1500&query_timeout_ms=2500',
      'fromenv',
      'target.url',
      'dpone-target',
    );
    expect(config).toMatchObject({
      host: 'db.example',
      port: 6543,
      user: 'u',
      password: 'fromenv',
      database: 'app',
      connectionTimeoutMillis: 1500,
      query_timeout: 2500,
      pinned: { field: 'target.url', timeoutMs: 2500, searchPath: 'c_1', values: true, durableCommit: 'on' },
    });
    // Nothing but the login goes in the startup packet: a pooler refuses or drops the rest.
    for (const startup of ['options', 'statement_timeout', 'lock_timeout'])
      expect(Object.keys(config)).not.toContain(startup);
  });

  it('rejects a bad schema or timeout as INVALID_INPUT without echoing the URL', () => {
    for (const url of [
      'postgres://u:s3cret@h/db?schema=x;drop',
      'postgres://u:s3cret@h/db?schema=pg_temp',
      'postgres://u:s3cret@h/db?schema=pg_catalog',
      'postgres://u:s3cret@h/db?schema=information_schema',
      'postgres://u:s3cret@h/db?query_timeout_ms=-1',
      'mysql://u:s3cret@h/db',
      'postgres://u:s3cret@h/db?synchronous_commit=off',
    ]) {
      let thrown: unknown;
      try {
        parsePostgresUrl(url, undefined, 'target.url', 'x');
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toMatchObject({ code: ERROR_CODES.INVALID_INPUT, fields: { field: 'target.url' } });
      expect(String((thrown as Error).message)).not.toContain('s3cret');
    }
  });

  it('takes a replica-durable synchronous_commit, refuses one that acknowledges before it is durable', () => {
    const at = (level: string) =>
      parsePostgresUrl(`postgres://u@h/db?synchronous_commit=${level}`, undefined, 'target.url', 'x').pinned
        .durableCommit;
    expect(at('remote_apply')).toBe('remote_apply');
    expect(at('on')).toBe('on');
    for (const level of ['off', 'local', 'ON'])
      expect(() => at(level)).toThrow(expect.objectContaining({ code: ERROR_CODES.INVALID_INPUT }));
  });

  it('quotes schema-qualified table names', () => {
    expect(quoteTable('s.t"x')).toBe('"s"."t""x"');
  });

  it.each([
    ['not a URL', 'target.url is not a URL'],
    ['mysql://u:s3cret@h/db', 'target.url is not a postgres:// URL'],
    ['postgres://u:s3cret@h/', 'target.url needs a host and a database'],
    ['postgres://u:s3cret@h/db?connect_timeout_ms=0', 'target.url has a bad connect_timeout_ms'],
    ['postgres://u:s3cret@h/db?schema=X', 'target.url has a bad schema (lower-case letters, digits, _)'],
    [
      'postgres://u:s3cret@h/db?synchronous_commit=local',
      'target.url has a bad synchronous_commit: an acknowledged commit must be durable (on, remote_write or remote_apply)',
    ],
  ])('refuses %s in the words of the workload field', (url, message) => {
    expect(() => parsePostgresUrl(url, undefined, 'target.url', 'x')).toThrow(
      expect.objectContaining({ code: ERROR_CODES.INVALID_INPUT, message, fields: { field: 'target.url' } }),
    );
  });
});
