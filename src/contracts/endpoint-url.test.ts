import { describe, expect, it } from 'vitest';
import { parseEndpointUrl, positiveIntParam, urlDatabase } from './endpoint-url.ts';
import { ERROR_CODES } from './errors.ts';

const refusal = (why: string) =>
  expect.objectContaining({
    code: ERROR_CODES.INVALID_INPUT,
    message: `target.url ${why}`,
    fields: { field: 'target.url' },
  });

describe('endpoint URLs', () => {
  it('takes only the named schemes, and never echoes the URL it refuses', () => {
    const schemes = ['db:', 'database:'];
    expect(parseEndpointUrl('database://u@h/db', 'target.url', schemes, 'a db:// URL').hostname).toBe('h');
    expect(() => parseEndpointUrl('mysql://u:s3cret@h/db', 'target.url', schemes, 'a db:// URL')).toThrow(
      refusal('is not a db:// URL'),
    );
    expect(() => parseEndpointUrl('//u:s3cret@h/db', 'target.url', schemes, 'a db:// URL')).toThrow(
      refusal('is not a URL'),
    );
  });

  it('reads the database from the path, decoded', () => {
    expect(urlDatabase(new URL('db://h/my%20db'))).toBe('my db');
    expect(urlDatabase(new URL('db://h'))).toBe('');
  });

  it('reads a positive whole number, its fallback when absent, and refuses anything else', () => {
    const q = (text: string) => new URLSearchParams(text);
    expect(positiveIntParam(q(''), 'query_timeout_ms', 15, 'target.url')).toBe(15);
    expect(positiveIntParam(q('query_timeout_ms=250'), 'query_timeout_ms', 15, 'target.url')).toBe(250);
    for (const bad of ['0', '-1', '1.5', 'soon', ''])
      expect(() =>
        positiveIntParam(q(`query_timeout_ms=${bad}`), 'query_timeout_ms', 15, 'target.url'),
      ).toThrow(refusal('has a bad query_timeout_ms'));
  });
});
