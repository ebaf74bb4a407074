import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../src/contracts/errors.ts';
import { MAX_LEASE_TTL_MS } from '../src/contracts/lease-clock.ts';
import type { TargetCommitJournalPort } from '../src/ports/journal.ts';
import {
  AUDIT,
  create,
  leaseOn,
  opId,
  reach,
  refusedUnchanged,
  rejectsWith,
} from './journal-conformance-kit.ts';

const YEAR_MS = 365 * 86_400_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Whose clock decides a lease, and the operator's way out (expire-lease). Registered by the main
 * suite for every adapter, and on its own for a server-clock adapter whose main suite runs on the
 * caller's clock (its fixed instants). A `caller` journal must read an expiry further ahead than
 * the largest TTL as expired (a clock fault) and say whose; a `server` journal must ignore the
 * callers' clocks altogether.
 */
export function describeJournalClockConformance(journalOf: () => TargetCommitJournalPort): void {
  describe('lease clock', () => {
    it('a holder whose clock runs a year ahead does not wedge the operation', async () => {
      const journal = journalOf();
      const id = opId('clock-year-ahead');
      const now = Date.now();
      const entry = await create(journal, id, now);
      const ahead = await leaseOn(journal, entry, 'ahead', 200, now + YEAR_MS);
      if (journal.leaseClock === 'caller') {
        // The expiry is the holder's: a year away, further than any TTL. The next holder reads it
        // as a clock fault at once and records whose lease it ended.
        expect(ahead.lease!.expires_at_ms).toBe(now + YEAR_MS + 200);
        const taken = await leaseOn(journal, ahead, 'normal', 200, now + 1);
        expect([taken.lease?.holder, taken.lease?.epoch]).toEqual(['normal', 2]);
        expect((await journal.history(id)).at(-1)?.evidence).toEqual({
          reason: 'lease:takeover-clock-fault',
          holder: 'normal',
          previous_holder: 'ahead',
          previous_epoch: 1,
          previous_expires_at_ms: now + YEAR_MS + 200,
        });
      } else {
        // The server wrote its own now + TTL: the holder's clock did not count.
        const written = ahead.lease!.expires_at_ms - ahead.updated_at_ms;
        expect(written).toBe(200);
        expect(Math.abs(ahead.updated_at_ms - Date.now())).toBeLessThan(60_000);
        // Live for the TTL by the server's clock, whatever the challenger's clock says...
        await refusedUnchanged(
          journal,
          leaseOn(journal, ahead, 'normal', 200, now + 2 * YEAR_MS),
          ERROR_CODES.CAS_CONFLICT,
          ahead,
        );
        // ...and over after it, even for a challenger whose clock runs a year behind.
        await sleep(Math.max(0, ahead.lease!.expires_at_ms - Date.now()) + 50);
        const taken = await leaseOn(journal, ahead, 'normal', 200, now - YEAR_MS);
        expect([taken.lease?.holder, taken.lease?.epoch]).toEqual(['normal', 2]);
        expect((await journal.history(id)).at(-1)?.evidence.reason).toBe('lease:takeover');
      }
    });

    it('a lease within the largest TTL is not a clock fault', async () => {
      const journal = journalOf();
      if (journal.leaseClock !== 'caller') return;
      const id = opId('clock-within-bound');
      const entry = await create(journal, id, 1_000);
      const held = await leaseOn(journal, entry, 'a', MAX_LEASE_TTL_MS, 1_000);
      await refusedUnchanged(journal, leaseOn(journal, held, 'b', 1, 1_000), ERROR_CODES.CAS_CONFLICT, held);
    });

    it('instants come from the journal clock the adapter declares', async () => {
      const journal = journalOf();
      const id = opId('clock-instants');
      const made = await journal.createIntent({
        operationId: id,
        intentDigest: `sha256:${'cd'.repeat(32)}`,
        metadata: { workload_id: 'w', target_identity: 't' },
        nowMs: 7,
        lease: { holder: 'a', ttlMs: 100 },
      });
      if (journal.leaseClock === 'caller') expect(made.entry.created_at_ms).toBe(7);
      else expect(Math.abs(made.entry.created_at_ms - Date.now())).toBeLessThan(60_000);
      const history = await journal.history(id);
      expect(history.every((record) => record.at_ms === made.entry.created_at_ms)).toBe(true);
    });
  });

  describe('expire-lease', () => {
    it('ends the lease on the version read: the state and last_epoch stay, the next holder takes a new epoch', async () => {
      const journal = journalOf();
      const id = opId('expire-lease');
      const committing = await reach(journal, id, 'COMMITTING');
      const held = await leaseOn(journal, committing, 'dead', MAX_LEASE_TTL_MS, committing.updated_at_ms);
      const ended = await journal.expireLease({
        operationId: id,
        expectedVersion: held.version,
        evidence: { reason: 'recovery:expire-lease', holder: AUDIT.actor },
        nowMs: held.updated_at_ms + 1,
        audit: { ...AUDIT, action: 'expire-lease' },
      });
      expect([ended.state, ended.lease, ended.last_epoch, ended.version]).toEqual([
        'COMMITTING',
        null,
        held.last_epoch,
        held.version + 1,
      ]);
      expect(await journal.get(id)).toEqual(ended);
      const record = (await journal.history(id)).at(-1)!;
      expect(record).toMatchObject({
        version: ended.version,
        kind: 'audit',
        from_state: 'COMMITTING',
        to_state: 'COMMITTING',
        lease_holder: null,
        lease_epoch: null,
        audit: { ...AUDIT, action: 'expire-lease' },
      });
      expect(record.evidence).toEqual({
        reason: 'recovery:expire-lease',
        holder: AUDIT.actor,
        previous_holder: 'dead',
        previous_epoch: held.lease!.epoch,
        previous_expires_at_ms: held.lease!.expires_at_ms,
      });
      const next = await leaseOn(journal, ended, 'next', 100, ended.updated_at_ms);
      expect(next.lease?.epoch).toBe(held.lease!.epoch + 1);
    });

    it('a stale version, or no lease to end, is a conflict and changes nothing', async () => {
      const journal = journalOf();
      const id = opId('expire-lease-stale');
      const entry = await create(journal, id);
      const request = { operationId: id, evidence: { reason: 'recovery:expire-lease' }, nowMs: 2_000 };
      await refusedUnchanged(
        journal,
        journal.expireLease({ ...request, expectedVersion: entry.version }),
        ERROR_CODES.CAS_CONFLICT,
        entry,
      );
      const held = await leaseOn(journal, entry, 'a', 100, 2_000);
      await refusedUnchanged(
        journal,
        journal.expireLease({ ...request, expectedVersion: entry.version }),
        ERROR_CODES.CAS_CONFLICT,
        held,
      );
      await rejectsWith(
        journal.expireLease({ ...request, operationId: opId('expire-lease-none'), expectedVersion: 1 }),
        ERROR_CODES.CAS_CONFLICT,
      );
    });
  });
}
