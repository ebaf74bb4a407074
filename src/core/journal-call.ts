import { ERROR_CODES, codedOr } from '../contracts/errors.ts';

/**
 * Runs one journal call; anything that is not one of our coded errors means the journal could not
 * answer, which the protocol reads as "no mutation allowed".
 */
export function journalCall<T>(operation: () => Promise<T>, operationId: string): Promise<T> {
  return codedOr(
    operation,
    ERROR_CODES.JOURNAL_UNAVAILABLE,
    'the commit journal could not be reached; no target mutation was attempted after this point',
    { operationId },
  );
}
