import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../contracts/errors.ts';
import type { Workload } from '../contracts/workload.ts';
import { BUILT_IN_CONNECTORS } from './engine-table.ts';
import { embeddedEngine, serverJournalEngine } from './engine-roles.ts';
import { checkRequiredSecrets } from './required-secrets.ts';

/** Journal URLs of the engine table's engines: the embedded file journal's, and every server journal scheme. */
const [FILE] = embeddedEngine();
const [SERVER] = serverJournalEngine();
const SERVER_SCHEMES = Object.entries(BUILT_IN_CONNECTORS).flatMap(([name, engine]) =>
  engine.journal?.kind === 'server' ? [name, ...(engine.naming?.schemes ?? [])] : [],
);

/** Only the endpoints' password_env is read here: their URLs are any server's. */
const workload = {
  source: { url: 'server://r@h/db', table: 's', password_env: 'SRC_PW' },
  target: { url: 'server://w@h/db', table: 't', password_env: 'TGT_PW' },
} as unknown as Workload;
const both = { SRC_PW: 'a', TGT_PW: 'b' };

function refusal(run: () => void) {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a refusal');
}

describe('required password variables, checked before any I/O', () => {
  it('names the unset variable of an endpoint', () => {
    expect(refusal(() => checkRequiredSecrets(workload, `${FILE}:j.db`, { SRC_PW: 'a' }))).toMatchObject({
      code: ERROR_CODES.INVALID_INPUT,
      fields: { field: 'target.password_env' },
      message: expect.stringContaining('TGT_PW'),
    });
    expect(() => checkRequiredSecrets(workload, `${FILE}:j.db`, { SRC_PW: 'a' }, ['source'])).not.toThrow();
  });

  it('needs DPONE_JOURNAL_PASSWORD for a server journal without a password in its URL (empty counts)', () => {
    expect(SERVER_SCHEMES.length).toBeGreaterThan(1);
    for (const scheme of SERVER_SCHEMES)
      expect(refusal(() => checkRequiredSecrets(workload, `${scheme}://j@h/db`, both))).toMatchObject({
        code: ERROR_CODES.INVALID_INPUT,
        fields: { field: 'DPONE_JOURNAL_PASSWORD' },
      });
    expect(() =>
      checkRequiredSecrets(workload, `${SERVER}://j@h/db`, { ...both, DPONE_JOURNAL_PASSWORD: '' }),
    ).not.toThrow();
    expect(() => checkRequiredSecrets(workload, `${SERVER}://j:inurl@h/db`, both)).not.toThrow();
    expect(() => checkRequiredSecrets(workload, `${FILE}:///var/j.db`, both)).not.toThrow();
  });
});
