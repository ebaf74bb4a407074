import type { JournalDescription } from '../core/deployment-policy.ts';
import type { ShadowJournal } from '../ports/shadow-journal.ts';
import { basename, dirname, join } from 'node:path';
import { within } from '../core/shadow-recorder.ts';
import { JOURNAL_PASSWORD_ENV, sqlitePath } from './journal-url.ts';

/**
 * The shadow journal's file: beside the SQLite journal, `journal.db` → `journal.shadow.db`. Not the
 * journal file itself: the protocol's journal refuses a file that exists without its tables (a
 * lost journal is never re-created silently), so records in it would stop a later enforced run.
 */
export function shadowJournalPath(url: string, base: string): string {
  const journal = sqlitePath(url, base);
  const name = basename(journal);
  const dot = name.lastIndexOf('.');
  return join(
    dirname(journal),
    dot > 0 ? `${name.slice(0, dot)}.shadow${name.slice(dot)}` : `${name}.shadow`,
  );
}

/**
 * Opens the shadow journal beside the workload's SQLite journal (shadowJournalPath). Shadow mode records into a SQLite journal; any other journal, or one that cannot
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
  env: NodeJS.ProcessEnv = {},
): Promise<ShadowJournal | null> {
  // A server journal's engine keeps the shadow records beside it (JournalEngine.openShadow: PostgreSQL's).
  const openShadow =
    shadow.journal.kind === 'sqlite'
      ? undefined
      : (await import('./built-in-engines.ts')).engineJournal(shadow.journal.kind)?.openShadow;
  if (openShadow) {
    try {
      // Connecting is bounded by the timeout too: an unreachable server costs it once.
      return await within(
        openShadow(shadow.url, env[JOURNAL_PASSWORD_ENV] || undefined, {
          timeoutMs: shadow.timeoutMs,
          create,
        }),
        shadow.timeoutMs * 2,
        'opening the shadow journal',
      );
    } catch {
      warn(
        `dpone: warning: the shadow journal (${shadow.journal.location}) cannot be opened: the write goes on unrecorded`,
      );
      return null;
    }
  }
  if (shadow.journal.kind !== 'sqlite') {
    warn(
      `dpone: warning: shadow records are kept in a SQLite or PostgreSQL journal; ${shadow.journal.location} is ${shadow.journal.kind}: the write goes on unrecorded`,
    );
    return null;
  }
  try {
    const { SqliteShadowJournal } = await import('../../connectors/sqlite/journal/sqlite-shadow-journal.ts');
    return SqliteShadowJournal.open(shadowJournalPath(shadow.url, shadow.base), {
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
