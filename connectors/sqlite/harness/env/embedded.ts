import type { EmbeddedEntry } from '../../../../harness/env/service-entry.ts';

/** The SQLite inside this Node (node:sqlite), loaded only when asked: an older Node has none. */
async function sqliteVersion(): Promise<string> {
  const { DatabaseSync } = await import('node:sqlite');
  const db = new DatabaseSync(':memory:');
  try {
    return (db.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v;
  } finally {
    db.close();
  }
}

/**
 * SQLite as the engine inside Node: its version for the evidence of the providers that run it,
 * and the one component `dpone doctor` probes for it (it comes with Node, so a Node too old for
 * the project reports it missing without trying).
 */
export const SQLITE_EMBEDDED: EmbeddedEntry<'sqlite'> = {
  version: sqliteVersion,
  install: {
    hints: { sqlite: 'comes with Node >= 22.22' },
    matchers: [],
  },
  doctor: {
    // Inside Node on every provider; its own route on the embedded one is the default use.
    uses: {
      providers: { embedded: ['sqlite'], local: ['sqlite'], docker: ['sqlite'], external: ['sqlite'] },
      ownRoute: [{ provider: 'embedded', command: 'npm run certify' }],
    },
    probe: async ({ nodeSupported }) => {
      let detail = 'node:sqlite is not available in this Node';
      let present = false;
      if (nodeSupported) {
        try {
          detail = `SQLite ${await sqliteVersion()} (node:sqlite)`;
          present = true;
        } catch {
          // stays missing
        }
      }
      return [[{ id: 'sqlite', name: 'SQLite (node:sqlite)', present, detail }, 11]];
    },
  },
};
