import { invalidInput } from '../../../src/contracts/errors.ts';
import { redactUrl } from '../../../src/contracts/redact-url.ts';
import type { MssqlPoolConfig } from './mssql-driver.ts';

const TRUE = new Set(['1', 'true', 'yes']);
const FALSE = new Set(['0', 'false', 'no']);

function flag(url: URL, name: string, fallback: boolean): boolean {
  const value = url.searchParams.get(name)?.toLowerCase();
  if (value === undefined) return fallback;
  if (TRUE.has(value)) return true;
  if (FALSE.has(value)) return false;
  throw invalidInput(`journal URL "${redactUrl(url.toString())}": ${name} must be true or false`, {
    field: '--journal',
  });
}

/**
 * Parses `mssql://user[:password]@host[:port]/database?encrypt=true&trustServerCertificate=false`
 * (also `sqlserver://`). `password`, when given (from DPONE_JOURNAL_PASSWORD), wins over one in the
 * URL, so the URL on a command line need not carry the secret. Errors show the URL redacted.
 */
export function parseMssqlUrl(text: string, password?: string): MssqlPoolConfig {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalidInput(`journal URL "${redactUrl(text)}" is not a valid URL`, { field: '--journal' });
  }
  if (!['mssql:', 'sqlserver:'].includes(url.protocol) || url.hostname === '') {
    throw invalidInput(`journal URL "${redactUrl(text)}" must be mssql://user@host[:port]/database`, {
      field: '--journal',
    });
  }
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  const port = url.port === '' ? undefined : Number(url.port);
  const instanceName = url.searchParams.get('instanceName') ?? undefined;
  const secret = password ?? (url.password === '' ? undefined : decodeURIComponent(url.password));
  return {
    server: url.hostname,
    ...(port !== undefined ? { port } : {}),
    ...(database !== '' ? { database } : {}),
    ...(url.username !== '' ? { user: decodeURIComponent(url.username) } : {}),
    ...(secret !== undefined ? { password: secret } : {}),
    connectionTimeout: 15_000,
    requestTimeout: 15_000,
    pool: { max: 4, min: 0 },
    options: {
      encrypt: flag(url, 'encrypt', true),
      trustServerCertificate: flag(url, 'trustServerCertificate', false),
      ...(instanceName !== undefined ? { instanceName } : {}),
    },
  };
}
