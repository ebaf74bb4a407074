import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../../contracts/errors.ts';
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
      statement_timeout: 2500,
    });
    expect(config.options).toMatch(/^-c search_path=c_1 -c DateStyle=ISO,MDY /);
  });

  it('rejects a bad schema or timeout as INVALID_INPUT without echoing the URL', () => {
    for (const url of [
      'postgres://u:s3cret@h/db?schema=x;drop',
      'postgres://u:s3cret@h/db?schema=pg_temp',
      'postgres://u:s3cret@h/db?schema=pg_catalog',
      'postgres://u:s3cret@h/db?schema=information_schema',
      'postgres://u:s3cret@h/db?query_timeout_ms=-1',
      'mysql://u:s3cret@h/db',
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

  it('pins every text-form setting on every connection, with or without a schema', () => {
    const { options } = parsePostgresUrl('postgres://u@h/db', undefined, 'source.url', 'x');
    for (const setting of [
      'DateStyle=ISO,MDY',
      'IntervalStyle=postgres',
      'extra_float_digits=3',
      'TimeZone=UTC',
      'bytea_output=hex',
      'lc_monetary=C',
    ])
      expect(options.split(' ')).toContain(setting);
    expect(options).not.toContain('search_path');
  });

  it('quotes schema-qualified table names', () => {
    expect(quoteTable('s.t"x')).toBe('"s"."t""x"');
  });
});
