import { describe, expect, it } from 'vitest';
import { DponeError, ERROR_CODES, codedOr } from './errors.ts';

describe('codedOr', () => {
  it('returns what the operation returns', async () => {
    expect(await codedOr(async () => 7, ERROR_CODES.JOURNAL_UNAVAILABLE, 'unused')).toBe(7);
  });

  it('passes one of our coded errors through as it is', async () => {
    const coded = new DponeError(ERROR_CODES.CAS_CONFLICT, 'a conflict', { operationId: 'op' });
    const failing = codedOr(
      async () => {
        throw coded;
      },
      ERROR_CODES.JOURNAL_UNAVAILABLE,
      'unused',
    );
    await expect(failing).rejects.toBe(coded);
  });

  it('turns anything else into the given code, message and fields, the original kept only as the cause', async () => {
    const driver = new Error('password=hunter2 in a driver message');
    const error: unknown = await codedOr(
      async () => {
        throw driver;
      },
      ERROR_CODES.FENCE_UNAVAILABLE,
      'the target fence could not be queried',
      { operationId: 'op' },
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DponeError);
    expect(error).toMatchObject({
      code: ERROR_CODES.FENCE_UNAVAILABLE,
      message: 'the target fence could not be queried',
      fields: { operationId: 'op' },
      cause: driver,
    });
    expect(JSON.stringify(error)).not.toContain('hunter2');
  });
});
