import { describeJournalConformance } from '../journal-conformance.ts';
import { MemoryJournal } from './memory-journal.ts';

describeJournalConformance('memory', async () => {
  const journal = new MemoryJournal();
  return { journal, url: null, [Symbol.asyncDispose]: () => journal.close() };
});
