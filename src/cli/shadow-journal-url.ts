import type { JournalDescription } from '../core/deployment-policy.ts';
import type { ShadowJournal } from '../ports/shadow-journal.ts';
import { sqlitePath } from './journal-url.ts';

/**
 * Opens the shadow journal in the workload's journal database (its own table beside the
 * protocol's). Shadow mode records into a SQLite journal; any other journal, or one that cannot
 * be opened, gives a warning and null: the write goes on unrecorded (the journal is secondary).
 * `create: false` (the report) opens read-only and creates nothing.
 */
export async function openShadowJournal(
  shadow: {
    readonly journal: JournalDescription;
    readonly url: string;
    readonly base: string;
    readonly timeoutMs: number;
  },
  warn: (line: string) => void,
  create = true,
): Promise<ShadowJournal | null> {
  if (shadow.journal.kind !== 'sqlite') {
    warn(
      `dpone: warning: shadow records are kept in a SQLite journal; ${shadow.journal.location} is ${shadow.journal.kind}: the write goes on unrecorded`,
    );
    return null;
  }
  try {
    const { SqliteShadowJournal } = await import('../adapters/shadow/sqlite-shadow-journal.ts');
    return SqliteShadowJournal.open(sqlitePath(shadow.url, shadow.base), {
      timeoutMs: shadow.timeoutMs,
      create,
    });
  } catch {
    warn(
      `dpone: warning: the shadow journal (${shadow.journal.location}) cannot be opened: the write goes on unrecorded`,
    );
    return null;
  }
}
