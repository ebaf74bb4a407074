import type { TargetCommitJournalPort } from '../../src/ports/journal.ts';

/**
 * Whether every entry and its history read through the runtime's own journal code (checksums
 * verified, so a damaged row throws): what a corruption cell asks of a journal before it trusts it
 * again. The caller opens and closes the journal.
 */
export async function readsEveryEntry(
  journal: Pick<TargetCommitJournalPort, 'list' | 'get' | 'history'>,
): Promise<boolean> {
  try {
    for (const id of await journal.list()) {
      await journal.get(id);
      await journal.history(id);
    }
    return true;
  } catch {
    return false;
  }
}
