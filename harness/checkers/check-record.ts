import type { CheckRecord } from '../evidence/evidence-types.ts';
import type { Verdict } from '../verdict.ts';
import { describeError } from '../evidence/error-description.ts';
import type { CheckContext, Checker } from './check-types.ts';

export function record(name: string, verdict: Verdict, detail: string): CheckRecord {
  return { name, verdict, detail };
}

/** Runs one checker; a throw becomes UNKNOWN with the reason, never an exception. */
export function runChecker(checker: Checker, context: CheckContext): CheckRecord {
  try {
    return checker.check(context);
  } catch (error) {
    return record(checker.name, 'UNKNOWN', `checker failed: ${describeError(error)}`);
  }
}
