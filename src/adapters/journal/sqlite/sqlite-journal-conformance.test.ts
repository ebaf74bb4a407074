import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeJournalConformance } from '../journal-conformance.ts';
import { SqliteJournal } from './sqlite-journal.ts';

describeJournalConformance('sqlite', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'dpone-journal-'));
  const path = join(dir, 'journal.db');
  const journal = await SqliteJournal.open(path);
  return {
    journal,
    url: `sqlite://${path}`,
    [Symbol.asyncDispose]: async () => {
      await journal.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});
