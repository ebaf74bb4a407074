import { describe, expect, it } from 'vitest';
import { DponeError, ERROR_CODES } from '../../src/contracts/errors.ts';
import { parseMssqlConnectorUrl, quoteTable, redactMssqlUrl } from './mssql-connector-config.ts';

function refused(url: string): DponeError {
  try {
    parseMssqlConnectorUrl(url, undefined, 'target.url', 'dpone-target');
  } catch (error) {
    expect(error).toBeInstanceOf(DponeError);
    return error as DponeError;
  }
  throw new Error('expected the URL to be refused');
}

describe('parseMssqlConnectorUrl', () => {
  it('reads host, port, database, user, timeouts and flags; the password is the one from the environment', () => {
    const config = parseMssqlConnectorUrl(
      'mssql://etl%40corp@db.example:14330/ware%20house?encrypt=false&trustServerCertificate=true&connect_timeout_ms=700&query_timeout_ms=900&instanceName=SQLEXPRESS',
      'from-env',
      'target.url',
      'dpone-target',
    );
    expect(config).toEqual({
      server: 'db.example',
      port: 14330,
      database: 'ware house',
      user: 'etl@corp',
      password: 'from-env',
      connectionTimeout: 700,
      requestTimeout: 900,
      pool: { max: 2, min: 0 },
      options: {
        encrypt: false,
        trustServerCertificate: true,
        appName: 'dpone-target',
        instanceName: 'SQLEXPRESS',
      },
    });
  });

  it('encrypts and verifies the certificate by default; sqlserver:// is accepted', () => {
    const config = parseMssqlConnectorUrl('sqlserver://sa@h/db', undefined, 'source.url', 'dpone-source');
    expect(config.options).toEqual({ encrypt: true, trustServerCertificate: false, appName: 'dpone-source' });
    expect(config).not.toHaveProperty('password');
    expect(config).not.toHaveProperty('port');
  });

  it('refuses a password in the URL (userinfo or parameter) without echoing it', () => {
    for (const url of [
      'mssql://sa:hunter2-secret@h/db',
      'mssql://sa@h/db?password=hunter2-secret',
      'mssql://sa@h/db?Pwd=hunter2-secret',
    ]) {
      const error = refused(url);
      expect([error.code, error.fields.field]).toEqual([ERROR_CODES.INVALID_INPUT, 'target.url']);
      expect(error.message).toMatch(/password_env/);
      expect(`${error.message}${JSON.stringify(error)}`).not.toMatch(/hunter2|sa@h/);
    }
  });

  it.each([
    ['not a url', /is not a URL/],
    ['other://h/db', /is not an mssql:\/\/ URL/],
    ['mssql://sa@h/', /needs a host and a database/],
    ['mssql://sa@h/db?encrypt=maybe', /bad encrypt/],
    ['mssql://sa@h/db?query_timeout_ms=0', /bad query_timeout_ms/],
  ])('refuses %s as INVALID_INPUT naming the field only', (url, why) => {
    const error = refused(url);
    expect(error.code).toBe(ERROR_CODES.INVALID_INPUT);
    expect(error.message).toMatch(why);
    expect(error.message).not.toContain(url);
  });
});

describe('redactMssqlUrl', () => {
  it('hides the user, the password and secret-looking parameters; keeps host, database and flags', () => {
    expect(redactMssqlUrl('mssql://sa:hunter2@db.example:1433/warehouse?encrypt=true&password=x')).toBe(
      'mssql://***:***@db.example:1433/warehouse?encrypt=true&password=***',
    );
    expect(redactMssqlUrl('mssql://sa:hunter2@[oops')).toBe('mssql://***');
  });
});

describe('quoteTable', () => {
  it('brackets each part and doubles a closing bracket', () => {
    expect(quoteTable('dbo.events')).toBe('[dbo].[events]');
    expect(quoteTable('odd]name')).toBe('[odd]]name]');
    expect(() => quoteTable('dbo.')).toThrow(DponeError);
  });
});
