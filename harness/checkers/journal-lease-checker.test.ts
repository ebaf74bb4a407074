import { describe, expect, it } from 'vitest';
import { MemoryJournal } from '../../src/adapters/journal/memory/memory-journal.ts';
import type { CommitJournalEntry } from '../../src/contracts/journal.ts';
import type { CommitState } from '../../src/contracts/states.ts';
import type { JournalSnapshot } from '../evidence/evidence-types.ts';
import { EMBEDDED_ENGINE } from '../routes/route-registry.ts';
import { checkedRuns, intentItem } from './fixtures/sample-evidence.ts';
import { journalSnapshot } from './journal-history-checker.ts';
import { journalLeaseChecker, leaseViolations } from './journal-lease-checker.ts';

const OP = 'sha256:' + 'c'.repeat(64);
const META = { workload_id: 'w', target_identity: `${EMBEDDED_ENGINE}:events` };

function check(journal: JournalSnapshot) {
  return journalLeaseChecker.check({ target: null, journal, attempts: [], expectation: { end: 'complete' } });
}

/** A journal driven by hand: `zombie` and `next` are two executors' holder names. */
async function history(steps: (j: Steps) => Promise<void>): Promise<JournalSnapshot> {
  const journal = new MemoryJournal();
  const created = await journal.createIntent({
    operationId: OP,
    intentDigest: 'sha256:' + 'd'.repeat(64),
    metadata: META,
    nowMs: 1000,
    lease: { holder: 'host:1:zombie', ttlMs: 100 },
  });
  const j = new Steps(journal, created.entry);
  await steps(j);
  return journalSnapshot({ entry: j.entry, history: await journal.history(OP) });
}

class Steps {
  readonly journal: MemoryJournal;
  entry: CommitJournalEntry;

  constructor(journal: MemoryJournal, entry: CommitJournalEntry) {
    this.journal = journal;
    this.entry = entry;
  }

  async cas(from: CommitState, to: CommitState, holder: string, version = this.entry.version) {
    this.entry = await this.journal.compareAndSet({
      operationId: OP,
      expectedVersion: version,
      expectedStates: new Set([from]),
      nextState: to,
      evidence: {
        reason: 'test',
        holder,
        ...(to === 'TARGET_COMMITTED' ? { fence_status: 'committed' } : {}),
      },
      nowMs: 2000,
      releaseLease: to === 'COMPLETE',
    });
  }

  /** `holder` moves the operation from PREPARING to COMMITTING, as one executor does. */
  async toCommitting(holder: string) {
    await this.cas('PREPARING', 'PREPARED', holder);
    await this.cas('PREPARED', 'COMMITTING', holder);
  }

  async takeover(holder: string) {
    this.entry = await this.journal.acquireLease({
      operationId: OP,
      expectedVersion: this.entry.version,
      holder,
      ttlMs: 100,
      nowMs: 5000,
    });
  }
}

describe('journal lease checker', () => {
  it('passes a real clean run: every transition written by the lease holder', async () => {
    const { journal } = await checkedRuns();
    const snapshot = journalSnapshot(journal);
    expect(snapshot.history.map((item) => item.writer)).toContain('e1');
    expect(check(snapshot)).toMatchObject({ verdict: 'PASS' });
  });

  it('passes a takeover after which only the new holder writes', async () => {
    const snapshot = await history(async (j) => {
      await j.toCommitting('host:1:zombie');
      await j.takeover('host:2:next');
      await j.cas('COMMITTING', 'TARGET_COMMITTED', 'host:2:next');
      await j.cas('TARGET_COMMITTED', 'COMPLETE', 'host:2:next');
    });
    expect(leaseViolations(snapshot)).toEqual([]);
    // Holder names never reach the evidence: aliases in order of appearance.
    expect(JSON.stringify(snapshot)).not.toContain('host:');
    expect(snapshot.history.map((item) => item.lease_holder)).toEqual([
      null,
      'e1',
      'e1',
      'e1',
      'e2',
      'e2',
      null,
    ]);
  });

  it('FAILs a paused zombie that advanced the journal while another executor held the lease', async () => {
    const snapshot = await history(async (j) => {
      await j.toCommitting('host:1:zombie');
      await j.takeover('host:2:next');
      // The zombie wakes, reads the version back, and its compare-and-set succeeds: the journal
      // itself does not know whose transition it is.
      await j.cas('COMMITTING', 'TARGET_COMMITTED', 'host:1:zombie');
    });
    expect(snapshot.history_legal).toBe(true);
    expect(check(snapshot)).toMatchObject({
      verdict: 'FAIL',
      detail: 'v6 COMMITTING -> TARGET_COMMITTED: written by e1 while e2 held the lease at epoch 2',
    });
  });

  it('FAILs a transition written while no executor held the lease, and one without a writer', async () => {
    const released = await history(async (j) => {
      await j.toCommitting('host:1:zombie');
      await j.cas('COMMITTING', 'TARGET_COMMITTED', 'host:1:zombie');
      await j.cas('TARGET_COMMITTED', 'COMPLETE', 'host:1:zombie');
    });
    expect(check(released)).toMatchObject({ verdict: 'PASS' });
    const edited: JournalSnapshot = {
      ...released,
      history: released.history.map((item, index) =>
        index === 3
          ? { ...item, writer: null }
          : index === 2
            ? { ...item, lease_holder: null, lease_epoch: null }
            : item,
      ),
    };
    expect(check(edited).detail).toMatch(/v4 PREPARED -> COMMITTING: written by no named executor/);
  });

  it('is UNKNOWN on a stored history from before writers were recorded', () => {
    const old: JournalSnapshot = {
      final_state: 'PREPARING',
      version: 1,
      history_legal: true,
      history: [intentItem('x')],
    };
    expect(check(old)).toMatchObject({ verdict: 'UNKNOWN' });
  });
});
