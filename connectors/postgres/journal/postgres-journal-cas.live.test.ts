import { describe, expect, it } from 'vitest';
import type { CommitJournalEntry } from '../../../src/contracts/journal.ts';
import type { PlannedChange } from '../../../src/contracts/journal-rules.ts';
import { newEntry, planLease, planTransition } from '../../../src/contracts/journal-rules.ts';
import type { CommitState } from '../../../src/contracts/states.ts';
import type { CompareAndSetRequest, LeaseRequest } from '../../../src/ports/journal.ts';
import { liveCluster, skipReason } from '../fixtures/live-cluster.ts';
import { AUDIT, DIGEST, METADATA, opId } from '../../../testing/journal-conformance-kit.ts';
import { PostgresJournal } from './postgres-journal.ts';

const cluster = liveCluster();

const cas = (
  id: string,
  from: CommitState[],
  next: CommitState,
  version: number,
  nowMs: number,
  extra: Partial<CompareAndSetRequest> = {},
): CompareAndSetRequest => ({
  operationId: id,
  expectedVersion: version,
  expectedStates: new Set(from),
  nextState: next,
  evidence: { reason: `test:${next}`, fence_epoch: 2 },
  nowMs,
  ...extra,
});

describe.skipIf(skipReason !== undefined)('postgres one-statement writes', () => {
  it('each write returns and records exactly what the shared planner computes', async () => {
    // The caller's clock, so the planner's instants are the ones written.
    await using journal = await PostgresJournal.open(cluster().url('postgres'), cluster().password, {
      leaseClock: 'caller',
    });
    const id = opId('pg-one-statement');
    const created = newEntry(id, DIGEST, METADATA, 1_000);
    let entry: CommitJournalEntry = (
      await journal.createIntent({ operationId: id, intentDigest: DIGEST, metadata: METADATA, nowMs: 1_000 })
    ).entry;
    const expected: PlannedChange[] = [created];
    const lease = async (request: LeaseRequest) => {
      const planned = planLease(entry, request);
      entry = await journal.acquireLease(request);
      expect(entry).toEqual(planned.entry);
      expected.push(planned);
    };
    const move = async (request: CompareAndSetRequest) => {
      const planned = planTransition(entry, request);
      entry = await journal.compareAndSet(request);
      expect(entry).toEqual(planned.entry);
      expected.push(planned);
    };
    await lease({ operationId: id, expectedVersion: 1, holder: 'a', ttlMs: 100, nowMs: 1_000 });
    await lease({ operationId: id, expectedVersion: 2, holder: 'a', ttlMs: 100, nowMs: 1_050 });
    await lease({ operationId: id, expectedVersion: 3, holder: 'b', ttlMs: 100, nowMs: 2_000 });
    await move(cas(id, ['PREPARING', 'PREPARED'], 'PREPARED', 4, 2_010));
    await move(cas(id, ['PREPARED'], 'COMMITTING', 5, 2_020));
    await move(cas(id, ['COMMITTING'], 'COMMIT_UNKNOWN', 6, 2_030, { releaseLease: true }));
    const result = { rows_written: 3, fence_epoch: 2, target_identity: 'memory:t' };
    await move(cas(id, ['COMMIT_UNKNOWN'], 'TARGET_COMMITTED', 7, 2_040, { audit: AUDIT, result }));
    await move(cas(id, ['TARGET_COMMITTED'], 'COMPLETE', 8, 2_050));
    expect(entry.result).toEqual(result);
    expect(await journal.get(id)).toEqual(entry);
    expect(await journal.history(id)).toEqual(expected.map((p) => p.record));
  });
});
