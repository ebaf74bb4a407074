import { isDponeError } from '../../src/contracts/errors.ts';

/** A safe one-line description of a thrown value: our own error's message, else only its kind. */
export function describeError(error: unknown): string {
  if (isDponeError(error)) return `${error.code}: ${error.message}`;
  return error instanceof Error ? `${error.name} (details withheld)` : 'a non-error value was thrown';
}
