import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../contracts/errors.ts';
import type { Workload } from '../contracts/workload.ts';
import { checkRequiredSecrets } from './required-secrets.ts';

const workload = {
  source: { url: 'postgres://r@h/db', table: 's', password_env: 'SRC_PW' },
  target: { url: 'postgres://w@h/db', table: 't', password_env: 'TGT_PW' },
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
    expect(refusal(() => checkRequiredSecrets(workload, 'sqlite:j.db', { SRC_PW: 'a' }))).toMatchObject({
      code: ERROR_CODES.INVALID_INPUT,
      fields: { field: 'target.password_env' },
      message: expect.stringContaining('TGT_PW'),
    });
    expect(() => checkRequiredSecrets(workload, 'sqlite:j.db', { SRC_PW: 'a' }, ['source'])).not.toThrow();
  });

  it('needs DPONE_JOURNAL_PASSWORD for a server journal without a password in its URL (empty counts)', () => {
    for (const url of ['postgres://j@h/db', 'postgresql://j@h/db', 'mssql://sa@h/db'])
      expect(refusal(() => checkRequiredSecrets(workload, url, both))).toMatchObject({
        code: ERROR_CODES.INVALID_INPUT,
        fields: { field: 'DPONE_JOURNAL_PASSWORD' },
      });
    expect(() =>
      checkRequiredSecrets(workload, 'postgres://j@h/db', { ...both, DPONE_JOURNAL_PASSWORD: '' }),
    ).not.toThrow();
    expect(() => checkRequiredSecrets(workload, 'postgres://j:inurl@h/db', both)).not.toThrow();
    expect(() => checkRequiredSecrets(workload, 'sqlite:///var/j.db', both)).not.toThrow();
  });
});
