import { DponeError, ERROR_CODES, isDponeError } from '../contracts/errors.ts';
import type { CommitJournalEntry } from '../contracts/journal.ts';
import { NON_RETRY_CAUSE_CODES } from '../contracts/error-causes.ts';
import { safe } from './fence-decision.ts';

/**
 * A coded error naming a cause no retry can fix (bad input, authentication, privilege, missing
 * object, rejected data), or null. Such a cause may decide the exit code only where nothing can
 * have been written: before any mutation, or after the fence proved none landed. An unknown
 * outcome stays COMMIT_UNKNOWN whatever the driver said.
 */
export function nonRetryCause(error: unknown): DponeError | null {
  if (!isDponeError(error)) return null;
  const coded = error as DponeError;
  return NON_RETRY_CAUSE_CODES.has(coded.code) || coded.code === ERROR_CODES.INVALID_INPUT ? coded : null;
}

/** The cause with the entry's safe identity, state and version, and what the journal proves. */
export function withEntry(cause: DponeError, entry: CommitJournalEntry, proof: string): DponeError {
  return new DponeError(
    cause.code,
    `${cause.message}; ${proof}`,
    { ...cause.fields, ...safe(entry) },
    { cause },
  );
}

/**
 * The cause the target gave for a mutation the fence proved did not land: a non-retry cause, or a
 * retry-safe refusal that says why (another operation holds the partition; the target's disk is
 * full, so space must be freed first); null otherwise.
 */
export function refusalCause(error: unknown): DponeError | null {
  if (isDponeError(error, ERROR_CODES.PARTITION_BUSY) || isDponeError(error, ERROR_CODES.STORAGE_FULL))
    return error as DponeError;
  return nonRetryCause(error);
}
