import { isDponeError } from '../../src/contracts/errors.ts';

/** A driver's or the OS's error code (`ETIMEDOUT`, `ER_CON_COUNT_ERROR`, `57014`): a name, never data. */
const SAFE_CODE = /^[A-Z0-9][A-Z0-9_]{1,63}$/;

/**
 * A safe one-line description of a thrown value: our own error's message, else only its kind and,
 * when it carries one, its error code (`Error ETIMEDOUT`): a message may hold SQL text or row
 * values, a code names what happened and nothing else.
 */
export function describeError(error: unknown): string {
  if (isDponeError(error)) return `${error.code}: ${error.message}`;
  if (!(error instanceof Error)) return 'a non-error value was thrown';
  const code = (error as { code?: unknown }).code;
  const named = typeof code === 'string' && SAFE_CODE.test(code) ? ` ${code}` : '';
  return `${error.name}${named} (details withheld)`;
}
