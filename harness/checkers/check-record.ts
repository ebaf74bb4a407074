import type { AttemptRecord, CheckRecord } from '../evidence/evidence-types.ts';
import type { Verdict } from '../verdict.ts';
import { describeError } from '../evidence/error-description.ts';
import type { CheckContext, Checker } from './check-types.ts';

export function record(name: string, verdict: Verdict, detail: string): CheckRecord {
  return { name, verdict, detail };
}

/** An attempt as a check's detail names it: its role and pid. */
export function who(attempt: AttemptRecord): string {
  return `${attempt.role} (pid ${attempt.pid})`;
}

/** Why a check needing the target says UNKNOWN when the target was not read. */
export function targetNotRead(context: CheckContext): string {
  return `target not read: ${context.targetError ?? 'no snapshot'}`;
}

/** Why a check needing the journal says UNKNOWN when the journal was not read. */
export function journalNotRead(context: CheckContext): string {
  return `journal not read: ${context.journalError ?? 'no snapshot'}`;
}

/** Runs one checker; a throw becomes UNKNOWN with the reason, never an exception. */
export function runChecker(checker: Checker, context: CheckContext): CheckRecord {
  try {
    return checker.check(context);
  } catch (error) {
    return record(checker.name, 'UNKNOWN', `checker failed: ${describeError(error)}`);
  }
}
