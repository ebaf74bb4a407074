import type { CommitJournalEntry } from '../contracts/journal.ts';

/**
 * Where checkpoints, source state and required evidence are made durable after the target
 * committed (spec step 10). A failure here leaves the operation COMMITTED_INCOMPLETE; it never
 * causes another target mutation.
 */
export interface StateSink {
  complete(entry: CommitJournalEntry): Promise<void>;
}
