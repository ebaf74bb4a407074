import { describe, expect, it } from 'vitest';
import { DponeError, ERROR_CODES } from '../../src/contracts/errors.ts';
import { describeError } from './error-description.ts';

describe('describeError', () => {
  it("gives a driver error's kind and code, never its message", () => {
    const error = Object.assign(new Error("Table 'secret_rows' has value 'alice@example.com'"), {
      code: 'ER_CON_COUNT_ERROR',
    });
    const text = describeError(error);
    expect(text).toBe('Error ER_CON_COUNT_ERROR (details withheld)');
    expect(text).not.toContain('alice');
  });

  it('drops a code that is not a plain identifier (it could carry data)', () => {
    const error = Object.assign(new TypeError('x'), { code: "value 'alice'" });
    expect(describeError(error)).toBe('TypeError (details withheld)');
    expect(describeError(Object.assign(new Error('x'), { code: 42 }))).toBe('Error (details withheld)');
  });

  it("keeps our own error's code and message, and says when a non-error was thrown", () => {
    expect(describeError(new DponeError(ERROR_CODES.INVALID_INPUT, 'bad flag'))).toBe(
      `${ERROR_CODES.INVALID_INPUT}: bad flag`,
    );
    expect(describeError('boom')).toBe('a non-error value was thrown');
  });
});
