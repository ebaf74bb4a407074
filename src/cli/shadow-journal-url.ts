import type { JournalDescription } from '../core/deployment-policy.ts';
import type { ShadowJournal } from '../ports/shadow-journal.ts';
import { within } from '../core/shadow-recorder.ts';
import { urlEngine } from './route-names.ts';
import { BUILT_IN_CONNECTORS, builtInConnector } from './engine-table.ts';
import { JOURNAL_PASSWORD_ENV } from './journal-url.ts';

/** The engines whose journals keep shadow records, for a warning to list. */
function shadowEngines(): string {
  return Object.entries(BUILT_IN_CONNECTORS)
    .filter(([, engine]) => engine.journal?.openShadow !== undefined)
    .map(([name]) => name)
    .join(', ');
}

/**
 * The shadow records' file beside a file journal (JournalEngine.shadowFilePath), or null for a
 * journal kept on a server (or by an engine that keeps no shadow records).
 */
export function shadowJournalPath(url: string, base: string): string | null {
  const engine = urlEngine(url);
  const journal = engine === null ? undefined : builtInConnector(engine)?.journal;
  return journal?.shadowFilePath ? journal.shadowFilePath(url, base) : null;
}

/**
 * Opens the shadow journal beside the workload's journal (JournalEngine.openShadow). A journal whose
 * engine keeps no shadow records, or one that cannot be opened, gives a warning and null: the write goes on unrecorded (the journal is secondary).
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
  // The journal's engine keeps the shadow records beside it (JournalEngine.openShadow: a file
  // journal's in a file beside it, a server journal's on the same server).
  const engine = urlEngine(shadow.url);
  const openShadow = engine === null ? undefined : builtInConnector(engine)?.journal?.openShadow;
  if (!openShadow) {
    warn(
      `dpone: warning: shadow records are kept beside a journal whose engine keeps them (${shadowEngines()}); ${shadow.journal.location} is ${shadow.journal.kind}: the write goes on unrecorded`,
    );
    return null;
  }
  try {
    // Connecting is bounded by the timeout too: an unreachable server costs it once.
    return await within(
      openShadow(shadow.url, env[JOURNAL_PASSWORD_ENV] || undefined, {
        timeoutMs: shadow.timeoutMs,
        create,
        cwd: shadow.base,
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
