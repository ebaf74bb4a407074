import type { CheckRecord } from '../evidence/evidence-types.ts';
import type { Verdict } from '../verdict.ts';
import { isDponeError } from '../../src/contracts/errors.ts';
import type { CheckContext, Checker } from './check-types.ts';

export function record(name: string, verdict: Verdict, detail: string): CheckRecord {
  return { name, verdict, detail };
}

/** A safe one-line description of a thrown value: our own error's message, else only its kind. */
export function describeError(error: unknown): string {
  if (isDponeError(error)) return `${error.code}: ${error.message}`;
  return error instanceof Error ? `${error.name} (details withheld)` : 'a non-error value was thrown';
}

/** Runs one checker; a throw becomes UNKNOWN with the reason, never an exception. */
export function runChecker(checker: Checker, context: CheckContext): CheckRecord {
  try {
    return checker.check(context);
  } catch (error) {
    return record(checker.name, 'UNKNOWN', `checker failed: ${describeError(error)}`);
  }
}
