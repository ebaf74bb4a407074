import { describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeJournalConformance } from '../../../testing/journal-conformance.ts';
import { openJournal } from '../../../src/cli/journal-url.ts';
import { SqliteJournal } from './sqlite-journal.ts';

describeJournalConformance(
  'sqlite',
  async () => {
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
  },
  { leaseOnCreate: true },
);

describe('sqlite conformance factory', () => {
  it('hands the process-race tests a URL that opens the very file the adapter wrote', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dpone-journal-url-'));
    try {
      const path = join(dir, 'journal.db');
      const journal = await SqliteJournal.open(path);
      await journal.createIntent({
        operationId: `sha256:${'c'.repeat(64)}`,
        intentDigest: `sha256:${'d'.repeat(64)}`,
        metadata: { workload_id: 'w', target_identity: 't' },
        nowMs: 1,
      });
      await journal.close();
      const reopened = await openJournal(`sqlite://${path}`, { cwd: dir, env: {} });
      expect(await reopened.list()).toEqual([`sha256:${'c'.repeat(64)}`]);
      await reopened.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
