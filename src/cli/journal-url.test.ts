import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../contracts/errors.ts';
import { MemoryJournal } from '../adapters/journal/memory/memory-journal.ts';
import { dponeRejection } from '../../testing/journal-conformance-kit.ts';
import { BUILT_IN_CONNECTORS } from './engine-table.ts';
import { openJournal } from './journal-url.ts';
import { JOURNAL_SECRET, closedPortAnswer, expectRefusedJournalUrl } from './journal-url.test-support.ts';

/*
 * The CLI's journal opener, engine by engine as the engine table registers them (a journal's kind:
 * a file or a server; the URL schemes that name it). What one engine's own URLs mean and what its
 * journal says is tested in its folder (connectors/<engine>/journal/).
 */

/** The URL schemes of the built-in engines whose journal is of `kind`: each engine's name and its extra schemes. */
function journalSchemes(kind: 'file' | 'server'): string[] {
  return Object.entries(BUILT_IN_CONNECTORS).flatMap(([name, engine]) =>
    engine.journal?.kind === kind ? [name, ...(engine.naming?.schemes ?? [])] : [],
  );
}

/** Where the journals open from: no case here opens a file, so the system's temporary folder. */
const cwd = tmpdir();

describe('openJournal', () => {
  it('memory: only under the test runner or when forced, because it is not durable', async () => {
    await using journal = await openJournal('memory:', { cwd, env: { VITEST: 'true' } });
    expect(journal).toBeInstanceOf(MemoryJournal);
    const refused = await dponeRejection(openJournal('memory:', { cwd, env: {} }));
    expect([refused.code, refused.fields.field]).toEqual([ERROR_CODES.INVALID_INPUT, '--journal']);
    await using forced = await openJournal('memory:', { cwd, env: { DPONE_ALLOW_MEMORY_JOURNAL: '1' } });
    expect(forced).toBeInstanceOf(MemoryJournal);
  });

  it('a bad URL is INVALID_INPUT naming --journal, never echoing a password', async () => {
    expect(journalSchemes('server')).not.toEqual([]);
    expect(journalSchemes('file')).not.toEqual([]);
    const urls = [
      `ftp://u:${JOURNAL_SECRET}@h/x`,
      'no scheme at all',
      ...journalSchemes('server').flatMap((scheme) => [
        `${scheme}://u:${JOURNAL_SECRET}@/db`,
        `${scheme}://u:${JOURNAL_SECRET}@`,
        // One policy for every URL: a password is refused even where the driver would take it.
        `${scheme}://u:${JOURNAL_SECRET}@127.0.0.1:1/journal`,
        `${scheme}://u:hunter2/secret@127.0.0.1:1/journal`,
        `${scheme}://u@127.0.0.1:1/journal?password=${JOURNAL_SECRET}`,
        `${scheme}://h:1433/journal?Password = ${JOURNAL_SECRET}`,
      ]),
      ...journalSchemes('file').map((scheme) => `${scheme}:///tmp/j.db?token=${JOURNAL_SECRET}`),
    ];
    for (const url of urls) await expectRefusedJournalUrl(url, cwd);
  });

  it('every server journal answers a closed port itself: JOURNAL_UNAVAILABLE without credentials', async () => {
    for (const scheme of journalSchemes('server')) {
      const { error, shown } = await closedPortAnswer(`${scheme}://u@127.0.0.1:1/journal`);
      expect(error.code, scheme).toBe(ERROR_CODES.JOURNAL_UNAVAILABLE);
      // Its engine's journal answered (reached through its engine entry), not the opener's generic
      // 'the journal "…" could not be opened' for an adapter that failed to load or without a code.
      expect(error.message, scheme).not.toMatch(/^the journal "/);
      expect(shown, scheme).not.toContain(JOURNAL_SECRET);
    }
  });
});
