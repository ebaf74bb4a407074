import { describe, expect, it } from 'vitest';
import { describeJournalConformance } from '../../../../testing/journal-conformance.ts';
import { MemoryJournal } from './memory-journal.ts';

describeJournalConformance(
  'memory',
  async () => {
    const journal = new MemoryJournal();
    return { journal, url: null, [Symbol.asyncDispose]: () => journal.close() };
  },
  { leaseOnCreate: true },
);

describe('memory journal', () => {
  it('is not durable: a second instance does not see the first one’s entries (tests only)', async () => {
    const first = new MemoryJournal();
    await first.createIntent({
      operationId: `sha256:${'a'.repeat(64)}`,
      intentDigest: `sha256:${'b'.repeat(64)}`,
      metadata: { workload_id: 'w', target_identity: 't' },
      nowMs: 1,
    });
    expect(await first.list()).toHaveLength(1);
    expect(await new MemoryJournal().list()).toEqual([]);
  });
});
