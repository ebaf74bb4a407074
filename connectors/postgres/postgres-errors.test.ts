import { describe, expect, it } from 'vitest';
import { DponeError, ERROR_CODES } from '../../src/contracts/errors.ts';
import { classifyPostgresError, needing, sqlstateOf } from './postgres-errors.ts';

/** The shape of pg's DatabaseError, with a message that must never surface. */
function serverError(code: string): Error {
  return Object.assign(new Error('permission denied for table secret_tbl: INSERT INTO x VALUES (s3cret)'), {
    code,
    severity: 'ERROR',
  });
}

const retry = (fields: object) => new DponeError(ERROR_CODES.FENCE_UNAVAILABLE, 'fence unavailable', fields);

describe('postgres error classification', () => {
  it('names the missing privilege of the step, with the SQLSTATE and without the server message', async () => {
    const failure = await needing('UPDATE on table dw._dpone_fence', () =>
      Promise.reject(serverError('42501')),
    ).catch((e: unknown) => e);
    const error = classifyPostgresError(failure, 'target', retry, { operationId: 'sha256:x' });
    expect(error).toMatchObject({
      code: ERROR_CODES.PERMISSION_DENIED,
      fields: { sqlstate: '42501', operationId: 'sha256:x' },
    });
    expect(error.fields.hint).toContain('the target role needs UPDATE on table dw._dpone_fence');
    expect(JSON.stringify(error) + error.message).not.toMatch(/s3cret|secret_tbl|INSERT INTO/);
    expect(error.exitCode).toBe(31);
  });

  it('keeps the innermost step’s privilege when steps nest', async () => {
    const failure = await needing('USAGE on the schema', () =>
      needing('DELETE on table events', () => Promise.reject(serverError('42501'))),
    ).catch((e: unknown) => e);
    expect(classifyPostgresError(failure, 'target', retry).fields.hint).toContain('DELETE on table events');
  });

  it.each([
    ['28P01', ERROR_CODES.AUTHENTICATION_FAILED, /source\.password_env/],
    ['3D000', ERROR_CODES.OBJECT_NOT_FOUND, /database named in source\.url/],
    ['42P01', ERROR_CODES.OBJECT_NOT_FOUND, /source\.table does not exist .*case-sensitive/],
    ['42703', ERROR_CODES.OBJECT_NOT_FOUND, /column of data\.columns/],
    ['23502', ERROR_CODES.DATA_REJECTED, /NOT NULL/],
    ['22P02', ERROR_CODES.DATA_REJECTED, /type/],
  ])('%s → %s with a hint', (state, code, hint) => {
    const error = classifyPostgresError(serverError(state), 'source', retry);
    expect(error.code).toBe(code);
    expect(error.fields).toMatchObject({ sqlstate: state, hint: expect.stringMatching(hint) });
  });

  it('keeps the caller’s retry code for transient classes and client-side failures', () => {
    expect(classifyPostgresError(serverError('40001'), 'target', retry)).toMatchObject({
      code: ERROR_CODES.FENCE_UNAVAILABLE,
      fields: { sqlstate: '40001' },
    });
    const refused = Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:5432'), { code: 'ECONNREFUSED' });
    expect(classifyPostgresError(refused, 'target', retry)).toMatchObject({
      code: ERROR_CODES.FENCE_UNAVAILABLE,
      fields: {},
    });
    // A Node errno with five capitals is not a SQLSTATE.
    expect(sqlstateOf(Object.assign(new Error('x'), { code: 'EPIPE' }))).toBeUndefined();
  });

  it('a full disk (53100) is STORAGE_FULL naming the part and the cause, with a free-space hint, exit 18', () => {
    const error = classifyPostgresError(serverError('53100'), 'target', retry, { operationId: 'sha256:x' });
    expect(error).toMatchObject({
      code: ERROR_CODES.STORAGE_FULL,
      fields: { sqlstate: '53100', operationId: 'sha256:x', hint: expect.stringMatching(/^free space/) },
    });
    expect(error.message).toContain('the PostgreSQL target could not be written');
    expect(error.message).toContain('(DISK_FULL)');
    expect(error.exitCode).toBe(18);
    expect(JSON.stringify(error) + error.message).not.toMatch(/s3cret|secret_tbl|INSERT INTO/);
    // Another resource class keeps the caller's retry code.
    expect(classifyPostgresError(serverError('53200'), 'target', retry).code).toBe(
      ERROR_CODES.FENCE_UNAVAILABLE,
    );
  });

  it('passes our own coded errors through unchanged', () => {
    const fenced = new DponeError(ERROR_CODES.FENCED, 'newer epoch');
    expect(classifyPostgresError(fenced, 'target', retry)).toBe(fenced);
  });
});
