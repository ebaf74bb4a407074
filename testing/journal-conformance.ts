import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../src/contracts/errors.ts';
import { COMMIT_STATES, TRANSITIONS, isOperatorOnlyTransition } from '../src/contracts/states.ts';
import type { TargetCommitJournalPort } from '../src/ports/journal.ts';
import type { JournalFactory, JournalUnderTest } from './journal-conformance-kit.ts';
import {
  AUDIT,
  METADATA,
  create,
  opId,
  reach,
  refusedUnchanged,
  rejectsWith,
  step,
  unchanged,
} from './journal-conformance-kit.ts';
import { describeJournalChainConformance } from './journal-conformance-chain.ts';
import { describeJournalClockConformance } from './journal-conformance-clock.ts';
import { describeJournalLeaseConformance } from './journal-conformance-lease.ts';
import { describeJournalRaceConformance } from './journal-conformance-race.ts';

export type { JournalFactory, JournalUnderTest } from './journal-conformance-kit.ts';
export { describeJournalClockConformance } from './journal-conformance-clock.ts';

export interface ConformanceOptions {
  /** When set, the whole suite is registered as skipped with this visible reason (e.g. UNVERIFIED). */
  readonly skipReason?: string;
  /**
   * The adapter takes the first lease in the create's own write when asked (`createIntent({ lease
   * })`; every built-in adapter does). Without it the suite accepts a create that leaves the entry
   * unleased (the executor then leases with its own call), but never a half-applied one.
   */
  readonly leaseOnCreate?: boolean;
}

/**
 * Registers the journal conformance suite for one adapter. Every adapter (memory, and each engine's
 * journal in connectors/<engine>/journal/) must pass it unchanged: the port's contract is this suite.
 */
export function describeJournalConformance(
  name: string,
  factory: JournalFactory,
  options: ConformanceOptions = {},
): void {
  if (options.skipReason !== undefined) {
    describe.skip(`journal conformance: ${name} — ${options.skipReason}`, () => {
      it('is not run here', () => undefined);
    });
    return;
  }
  describe(`journal conformance: ${name}`, () => {
    let subject: JournalUnderTest;
    let journal: TargetCommitJournalPort;
    beforeEach(async () => {
      subject = await factory();
      journal = subject.journal;
    });
    afterEach(async () => {
      await subject[Symbol.asyncDispose]();
    });

    it('create-if-absent: of many concurrent creators exactly one creates, all see its digest', async () => {
      const id = opId('concurrent-create');
      const digests = Array.from({ length: 12 }, (_, i) => `sha256:${i.toString(16).padStart(64, '0')}`);
      const results = await Promise.all(
        digests.map((intentDigest) =>
          journal.createIntent({ operationId: id, intentDigest, metadata: METADATA, nowMs: 1_000 }),
        ),
      );
      const winners = results.filter((r) => r.created);
      expect(winners).toHaveLength(1);
      const winning = winners[0]!.entry.intent_digest;
      expect(new Set(results.map((r) => r.entry.intent_digest))).toEqual(new Set([winning]));
      expect(results.every((r) => r.entry.version === 1 && r.entry.state === 'PREPARING')).toBe(true);
      expect(await journal.history(id)).toHaveLength(1);
    });

    it('create on an existing id returns the current entry unchanged, created: false', async () => {
      const id = opId('create-existing');
      const moved = await step(journal, await create(journal, id), 'PREPARED');
      const again = await journal.createIntent({
        operationId: id,
        intentDigest: `sha256:${'cd'.repeat(32)}`,
        metadata: METADATA,
        nowMs: 9_999,
      });
      expect(again).toEqual({ entry: moved, created: false });
      await unchanged(journal, moved);
    });

    it('CAS with a stale version is a conflict and changes nothing', async () => {
      const id = opId('stale-version');
      const first = await create(journal, id);
      const second = await step(journal, first, 'PREPARED');
      await rejectsWith(step(journal, first, 'PREPARED'), ERROR_CODES.CAS_CONFLICT);
      await refusedUnchanged(
        journal,
        journal.compareAndSet({
          operationId: id,
          expectedVersion: first.version,
          expectedStates: new Set(['PREPARED']),
          nextState: 'COMMITTING',
          evidence: { reason: 'stale' },
          nowMs: 3_000,
        }),
        ERROR_CODES.CAS_CONFLICT,
        second,
      );
    });

    it('CAS from an unexpected state is a conflict and changes nothing', async () => {
      const id = opId('unexpected-state');
      const entry = await create(journal, id);
      await refusedUnchanged(
        journal,
        journal.compareAndSet({
          operationId: id,
          expectedVersion: entry.version,
          expectedStates: new Set(['PREPARED', 'COMMITTING']),
          nextState: 'COMMITTING',
          evidence: { reason: 'unexpected' },
          nowMs: 2_000,
        }),
        ERROR_CODES.CAS_CONFLICT,
        entry,
      );
    });

    it('CAS on an operation that does not exist is a conflict', async () => {
      const id = opId('missing');
      await rejectsWith(
        journal.compareAndSet({
          operationId: id,
          expectedVersion: 1,
          expectedStates: new Set(['PREPARING']),
          nextState: 'PREPARED',
          evidence: { reason: 'missing' },
          nowMs: 1,
        }),
        ERROR_CODES.CAS_CONFLICT,
      );
      expect(await journal.get(id)).toBeNull();
    });

    it('every transition outside the state table is rejected and changes nothing', async () => {
      let rejected = 0;
      for (const from of COMMIT_STATES) {
        const entry = await reach(journal, opId(`illegal-from-${from}`), from);
        for (const to of COMMIT_STATES.filter((s) => !TRANSITIONS[from].includes(s))) {
          await rejectsWith(step(journal, entry, to, AUDIT), ERROR_CODES.ILLEGAL_TRANSITION);
          rejected++;
        }
        await unchanged(journal, entry);
      }
      expect(rejected).toBe(64 - Object.values(TRANSITIONS).flat().length);
    });

    it('every transition in the table is accepted (operator-only ones with an audit)', async () => {
      for (const from of COMMIT_STATES) {
        for (const to of TRANSITIONS[from]) {
          const entry = await reach(journal, opId(`legal-${from}-${to}`), from);
          const audit = isOperatorOnlyTransition(from, to) ? AUDIT : undefined;
          const next = await step(journal, entry, to, audit);
          expect([next.state, next.version]).toEqual([to, entry.version + 1]);
        }
      }
    });

    it('an operator-only transition without an audit is rejected; with one it is recorded', async () => {
      const entry = await reach(journal, opId('operator-only'), 'COMMIT_UNKNOWN');
      await refusedUnchanged(
        journal,
        step(journal, entry, 'TARGET_COMMITTED'),
        ERROR_CODES.ILLEGAL_TRANSITION,
        entry,
      );
      const next = await step(journal, entry, 'TARGET_COMMITTED', AUDIT);
      const last = (await journal.history(entry.operation_id)).at(-1);
      expect(last).toMatchObject({ version: next.version, kind: 'audit', audit: AUDIT });
    });

    it('versions grow by exactly 1 with one ordered history record per change', async () => {
      const id = opId('versions');
      let entry = await create(journal, id, 1_000);
      const seen = [entry];
      entry = await journal.acquireLease({
        operationId: id,
        expectedVersion: 1,
        holder: 'a',
        ttlMs: 50,
        nowMs: 1_001,
      });
      seen.push(entry);
      for (const next of ['PREPARED', 'COMMITTING', 'TARGET_COMMITTED', 'COMPLETE'] as const) {
        entry = await step(journal, entry, next);
        seen.push(entry);
      }
      expect(seen.map((e) => e.version)).toEqual([1, 2, 3, 4, 5, 6]);
      const history = await journal.history(id);
      expect(history.map((r) => r.version)).toEqual([1, 2, 3, 4, 5, 6]);
      expect(history.map((r) => r.kind)).toEqual([
        'intent',
        'lease',
        'transition',
        'transition',
        'transition',
        'transition',
      ]);
      expect(history.map((r) => r.to_state)).toEqual(seen.map((e) => e.state));
      for (let i = 1; i < history.length; i++) expect(history[i]!.from_state).toBe(history[i - 1]!.to_state);
    });

    it('read-after-write: get returns exactly what each write returned, result included', async () => {
      const id = opId('read-after-write');
      let entry = await create(journal, id);
      expect(await journal.get(id)).toEqual(entry);
      entry = await reach(journal, opId('raw-committing'), 'COMMITTING');
      const result = { rows_written: 3, fence_epoch: 1, target_identity: 'memory:conformance.target' };
      const committed = await journal.compareAndSet({
        operationId: entry.operation_id,
        expectedVersion: entry.version,
        expectedStates: new Set(['COMMITTING']),
        nextState: 'TARGET_COMMITTED',
        evidence: { reason: 'fence:committed', fence_status: 'committed', fence_epoch: 1, rows_written: 3 },
        nowMs: 7_000,
        result,
      });
      expect(committed.result).toEqual(result);
      expect(await journal.get(entry.operation_id)).toEqual(committed);
      expect((await journal.history(entry.operation_id)).at(-1)?.evidence).toMatchObject({
        fence_status: 'committed',
      });
    });

    it('get of an unknown id is null; list() names every created operation', async () => {
      expect(await journal.get(opId('never-created'))).toBeNull();
      const ids = [opId('list-a'), opId('list-b'), opId('list-c')];
      for (const id of ids) await create(journal, id);
      expect(await journal.list()).toEqual(expect.arrayContaining(ids));
    });

    it('a closed journal answers JOURNAL_UNAVAILABLE', async () => {
      await using other = await factory();
      await create(other.journal, opId('closed'));
      await other.journal.close();
      await rejectsWith(other.journal.get(opId('closed')), ERROR_CODES.JOURNAL_UNAVAILABLE);
      await rejectsWith(create(other.journal, opId('closed-2')), ERROR_CODES.JOURNAL_UNAVAILABLE);
    });

    describeJournalLeaseConformance(() => journal, options.leaseOnCreate ?? false);
    describeJournalClockConformance(() => journal);
    describeJournalChainConformance(() => journal);
    describeJournalRaceConformance(() => subject);
  });
}
