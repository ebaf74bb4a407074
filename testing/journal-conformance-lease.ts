import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../src/contracts/errors.ts';
import type { CommitJournalEntry } from '../src/contracts/journal.ts';
import type { LeaseRequest, TargetCommitJournalPort } from '../src/ports/journal.ts';
import {
  create,
  DIGEST,
  METADATA,
  opId,
  refusedUnchanged,
  rejectsWith,
  step,
  unchanged,
} from './journal-conformance-kit.ts';

/** Leases on the entry `id`: `holder` asks for 100 ms on the version it read (`more`: minEpoch, policyDigest). */
function leasing(journal: TargetCommitJournalPort, id: string) {
  return (expectedVersion: number, holder: string, nowMs: number, more: Partial<LeaseRequest> = {}) =>
    journal.acquireLease({ operationId: id, expectedVersion, holder, ttlMs: 100, nowMs, ...more });
}

/** The holder's prepare failed: the entry ends FAILED_PRE_COMMIT and the lease is released with it. */
function failReleasing(journal: TargetCommitJournalPort, entry: CommitJournalEntry, nowMs: number) {
  return journal.compareAndSet({
    operationId: entry.operation_id,
    expectedVersion: entry.version,
    expectedStates: new Set(['PREPARING']),
    nextState: 'FAILED_PRE_COMMIT',
    evidence: { reason: 'fence:prepare-failed' },
    nowMs,
    releaseLease: true,
  });
}

/** Lease rules: epochs are fencing tokens, so they must only ever grow. Registered by the suite. */
export function describeJournalLeaseConformance(
  journalOf: () => TargetCommitJournalPort,
  leaseOnCreate: boolean,
): void {
  describe('executor lease', () => {
    it('create with a lease: both changes in one write (versions 1 and 2), or none of the lease', async () => {
      const journal = journalOf();
      const id = opId('lease-on-create');
      const lease = { holder: 'a', ttlMs: 100 };
      const made = await journal.createIntent({
        operationId: id,
        intentDigest: DIGEST,
        metadata: METADATA,
        nowMs: 1_000,
        lease,
      });
      expect(made.created).toBe(true);
      const reasons = (await journal.history(id)).map((r) => [r.version, r.evidence.reason]);
      if (made.entry.lease === null && !leaseOnCreate) {
        expect([made.entry.version, reasons]).toEqual([1, [[1, 'intent:created']]]);
      } else {
        expect(made.entry.lease).toEqual({ holder: 'a', epoch: 1, expires_at_ms: 1_100 });
        expect([made.entry.state, made.entry.version, made.entry.last_epoch]).toEqual(['PREPARING', 2, 1]);
        expect(reasons).toEqual([
          [1, 'intent:created'],
          [2, 'lease:acquired'],
        ]);
      }
      expect(await journal.get(id)).toEqual(made.entry);
      // A second creator (another holder) finds the intent and takes nothing: no lease, no version.
      const again = await journal.createIntent({
        operationId: id,
        intentDigest: DIGEST,
        metadata: METADATA,
        nowMs: 1_001,
        lease: { holder: 'b', ttlMs: 100 },
      });
      expect([again.created, again.entry]).toEqual([false, made.entry]);
      await unchanged(journal, made.entry);
    });

    it('create with a lease whose expiry cannot be stored writes nothing at all', async () => {
      const journal = journalOf();
      const id = opId('lease-on-create-bad-ttl');
      const request = { operationId: id, intentDigest: DIGEST, metadata: METADATA, nowMs: 1_000 };
      const attempt = journal.createIntent({ ...request, lease: { holder: 'a', ttlMs: -1 } });
      if (leaseOnCreate) await rejectsWith(attempt, ERROR_CODES.INVALID_INPUT);
      else await attempt.catch(() => undefined);
      if (leaseOnCreate) expect(await journal.get(id)).toBeNull();
    });

    it('acquire gives epoch 1; renewal by the holder keeps it and extends the expiry', async () => {
      const journal = journalOf();
      const id = opId('lease-acquire');
      const lease = leasing(journal, id);
      const entry = await create(journal, id, 1_000);
      const acquired = await lease(1, 'a', 1_000);
      expect(acquired.lease).toEqual({ holder: 'a', epoch: 1, expires_at_ms: 1_100 });
      expect([acquired.state, acquired.version, acquired.last_epoch]).toEqual([entry.state, 2, 1]);
      const renewed = await lease(2, 'a', 1_050);
      expect(renewed.lease).toEqual({ holder: 'a', epoch: 1, expires_at_ms: 1_150 });
      expect((await journal.history(id)).map((r) => r.evidence.reason)).toEqual([
        'intent:created',
        'lease:acquired',
        'lease:renewed',
      ]);
    });

    it('records on each lease record the deployment policy the attempt ran under, when it names one', async () => {
      const journal = journalOf();
      const id = opId('lease-policy');
      const lease = leasing(journal, id);
      await create(journal, id, 1_000);
      const policy = `sha256:${'a'.repeat(64)}`;
      const retry = `sha256:${'b'.repeat(64)}`;
      await lease(1, 'a', 1_000);
      // A retry under another policy file (edited between tries) takes over after the expiry.
      await lease(2, 'b', 1_200, { policyDigest: retry });
      await lease(3, 'b', 1_250, { policyDigest: policy });
      const leases = (await journal.history(id)).filter((r) => r.kind === 'lease').map((r) => r.evidence);
      expect(leases.map((e) => [e.reason, e.holder, e.deployment_policy_digest])).toEqual([
        ['lease:acquired', 'a', undefined],
        ['lease:takeover', 'b', retry],
        ['lease:renewed', 'b', policy],
      ]);
    });

    it('another holder is refused before expiry and takes over after it with epoch + 1', async () => {
      const journal = journalOf();
      const id = opId('lease-takeover');
      const lease = leasing(journal, id);
      await create(journal, id, 1_000);
      const held = await lease(1, 'a', 1_000);
      await refusedUnchanged(journal, lease(2, 'b', 1_099), ERROR_CODES.CAS_CONFLICT, held);
      const taken = await lease(2, 'b', 1_100);
      expect(taken.lease).toEqual({ holder: 'b', epoch: 2, expires_at_ms: 1_200 });
      const last = (await journal.history(id)).at(-1);
      expect(last).toMatchObject({
        kind: 'lease',
        lease_holder: 'b',
        lease_epoch: 2,
        evidence: { reason: 'lease:takeover' },
      });
      // The old holder cannot renew what it lost: its version is stale and the lease is not its own.
      await refusedUnchanged(journal, lease(2, 'a', 1_101), ERROR_CODES.CAS_CONFLICT, taken);
    });

    it('a lease change with a stale version is a conflict and changes nothing', async () => {
      const journal = journalOf();
      const id = opId('lease-stale');
      const lease = leasing(journal, id);
      const entry = await step(journal, await create(journal, id), 'PREPARED');
      await refusedUnchanged(journal, lease(1, 'a', 2_000), ERROR_CODES.CAS_CONFLICT, entry);
    });

    it('epochs never repeat after a release, and the state never moves with a lease', async () => {
      const journal = journalOf();
      const id = opId('lease-release');
      const lease = leasing(journal, id);
      await create(journal, id, 1_000);
      let entry = await lease(1, 'a', 1_000);
      entry = await failReleasing(journal, entry, 1_010);
      expect([entry.lease, entry.last_epoch]).toEqual([null, 1]);
      entry = await lease(entry.version, 'a', 1_020);
      expect([entry.state, entry.lease?.epoch, entry.last_epoch]).toEqual(['FAILED_PRE_COMMIT', 2, 2]);
      const epochs = (await journal.history(id)).filter((r) => r.kind === 'lease').map((r) => r.lease_epoch);
      expect(epochs).toEqual([1, 2]);
    });

    it('minEpoch: a new holder gets max(last_epoch + 1, minEpoch); epochs never repeat after it', async () => {
      const journal = journalOf();
      const id = opId('lease-min-epoch');
      await create(journal, id, 1_000);
      const lease = leasing(journal, id);
      let entry = await lease(1, 'a', 1_000, { minEpoch: 7 });
      expect([entry.lease?.epoch, entry.last_epoch, entry.version]).toEqual([7, 7, 2]);
      // A minEpoch below last_epoch + 1 changes nothing: the next takeover is 8, not 3.
      entry = await lease(entry.version, 'b', 1_200, { minEpoch: 3 });
      expect([entry.lease?.holder, entry.lease?.epoch, entry.last_epoch]).toEqual(['b', 8, 8]);
      entry = await failReleasing(journal, entry, 1_210);
      entry = await lease(entry.version, 'c', 1_220);
      expect([entry.lease?.epoch, entry.last_epoch]).toEqual([9, 9]);
      const epochs = (await journal.history(id)).filter((r) => r.kind === 'lease').map((r) => r.lease_epoch);
      expect(epochs).toEqual([7, 8, 9]);
    });

    it('minEpoch: a renewal keeps its epoch, or raises it to a higher minEpoch, on the version it read', async () => {
      const journal = journalOf();
      const id = opId('lease-min-epoch-renew');
      await create(journal, id, 1_000);
      const lease = leasing(journal, id);
      let entry = await lease(1, 'a', 1_000);
      entry = await lease(entry.version, 'a', 1_010, { minEpoch: 1 });
      expect([entry.lease?.epoch, entry.last_epoch]).toEqual([1, 1]);
      entry = await lease(entry.version, 'a', 1_020, { minEpoch: 5 });
      expect(entry.lease).toEqual({ holder: 'a', epoch: 5, expires_at_ms: 1_120 });
      expect([entry.last_epoch, entry.version]).toEqual([5, 4]);
      // A raise on a stale version is a conflict and changes nothing.
      await refusedUnchanged(
        journal,
        lease(entry.version - 1, 'a', 1_030, { minEpoch: 9 }),
        ERROR_CODES.CAS_CONFLICT,
        entry,
      );
    });

    it('refuses a TTL whose expiry it could not store and read back, and stays readable', async () => {
      const journal = journalOf();
      const id = opId('lease-ttl-range');
      const entry = await create(journal, id, 1_000);
      for (const ttlMs of [1e16, Number.MAX_SAFE_INTEGER, -1, 0.5]) {
        await rejectsWith(
          journal.acquireLease({ operationId: id, expectedVersion: 1, holder: 'a', ttlMs, nowMs: 1_000 }),
          ERROR_CODES.INVALID_INPUT,
        );
      }
      await unchanged(journal, entry);
      const leased = await journal.acquireLease({
        operationId: id,
        expectedVersion: 1,
        holder: 'a',
        ttlMs: 86_400_000,
        nowMs: 1_000,
      });
      expect((await journal.get(id))?.lease?.expires_at_ms).toBe(86_401_000);
      expect(leased.version).toBe(2);
    });
  });
}
