import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../src/contracts/errors.ts';
import type { CommitJournalEntry } from '../src/contracts/journal.ts';
import type { CommitState } from '../src/contracts/states.ts';
import type { ChainTransition, TargetCommitJournalPort } from '../src/ports/journal.ts';
import { AUDIT, create, leaseOn, opId, reach, refusedUnchanged, step } from './journal-conformance-kit.ts';

/** A transition expected from `from` to `to`, with evidence naming it. */
function move(from: CommitState, to: CommitState, extra: Partial<ChainTransition> = {}): ChainTransition {
  return {
    expectedStates: new Set([from]),
    nextState: to,
    evidence: { reason: `conformance:chain:${from}->${to}` },
    ...extra,
  };
}

function chain(
  journal: TargetCommitJournalPort,
  entry: CommitJournalEntry,
  transitions: readonly ChainTransition[],
  expectedVersion = entry.version,
): Promise<CommitJournalEntry> {
  return journal.compareAndSetChain({
    operationId: entry.operation_id,
    expectedVersion,
    transitions,
    nowMs: entry.updated_at_ms + 1,
  });
}

/**
 * compareAndSetChain: several transitions in one durable commit, each still its own version and
 * history record, each judged as compareAndSet judges it; all or nothing.
 */
export function describeJournalChainConformance(journalOf: () => TargetCommitJournalPort): void {
  describe('transition chains (several compare-and-sets in one commit)', () => {
    it('a chain writes every transition: versions +1 each, one history record each, in order', async () => {
      const journal = journalOf();
      const id = opId('chain-prepare-commit');
      const created = await create(journal, id);
      const leased = await leaseOn(journal, created, 'chain-holder', 60_000, 1_001);
      const moved = await chain(journal, leased, [
        move('PREPARING', 'PREPARED', { evidence: { reason: 'fence:prepared', fence_epoch: 1 } }),
        move('PREPARED', 'COMMITTING', { evidence: { reason: 'mutation:begin', fence_epoch: 1 } }),
      ]);
      expect(moved).toMatchObject({ state: 'COMMITTING', version: leased.version + 2 });
      expect(moved.lease).toEqual(leased.lease);
      expect(await journal.get(id)).toEqual(moved);
      const history = (await journal.history(id)).slice(-2);
      expect(history.map((r) => [r.version, r.kind, r.from_state, r.to_state])).toEqual([
        [leased.version + 1, 'transition', 'PREPARING', 'PREPARED'],
        [leased.version + 2, 'transition', 'PREPARED', 'COMMITTING'],
      ]);
      expect(history.map((r) => r.evidence.reason)).toEqual(['fence:prepared', 'mutation:begin']);
      expect(history.map((r) => r.lease_holder)).toEqual(['chain-holder', 'chain-holder']);
      expect(history.map((r) => r.lease_epoch)).toEqual([leased.lease!.epoch, leased.lease!.epoch]);
    });

    it('result and lease release apply at their own transition; later records see no lease', async () => {
      const journal = journalOf();
      const id = opId('chain-complete');
      const committing = await reach(journal, id, 'COMMITTING');
      const leased = await leaseOn(journal, committing, 'chain-holder', 60_000, committing.updated_at_ms + 1);
      const result = { rows_written: 4, fence_epoch: 2, target_identity: 'memory:conformance.target' };
      const done = await chain(journal, leased, [
        move('COMMITTING', 'TARGET_COMMITTED', { result }),
        move('TARGET_COMMITTED', 'COMPLETE', { releaseLease: true }),
      ]);
      expect(done).toMatchObject({ state: 'COMPLETE', version: leased.version + 2, lease: null, result });
      expect(done.last_epoch).toBe(leased.last_epoch);
      expect(await journal.get(id)).toEqual(done);
      const [committed, complete] = (await journal.history(id)).slice(-2);
      expect(committed).toMatchObject({ to_state: 'TARGET_COMMITTED', lease_holder: 'chain-holder' });
      expect(complete).toMatchObject({ to_state: 'COMPLETE', lease_holder: null, lease_epoch: null });
    });

    it('a stale version refuses the whole chain and writes nothing', async () => {
      const journal = journalOf();
      const before = await create(journal, opId('chain-stale'));
      const moved = await step(journal, before, 'PREPARED');
      await refusedUnchanged(
        journal,
        chain(
          journal,
          moved,
          [move('PREPARED', 'COMMITTING'), move('COMMITTING', 'TARGET_COMMITTED')],
          before.version,
        ),
        ERROR_CODES.CAS_CONFLICT,
        moved,
      );
    });

    it.each([
      {
        title: 'a state the first transition does not expect refuses the chain and writes nothing',
        id: 'chain-state',
        from: 'PREPARED',
        moves: [move('PREPARING', 'PREPARED'), move('PREPARED', 'COMMITTING')],
        code: ERROR_CODES.CAS_CONFLICT,
      },
      {
        title: 'a later transition outside the table refuses the chain; the earlier ones are not written',
        id: 'chain-illegal',
        from: 'PREPARING',
        moves: [move('PREPARING', 'PREPARED'), move('PREPARED', 'COMPLETE')],
        code: ERROR_CODES.ILLEGAL_TRANSITION,
      },
      {
        title: 'a later transition that does not expect the state the one before leaves is a conflict',
        id: 'chain-gap',
        from: 'PREPARING',
        moves: [move('PREPARING', 'PREPARED'), move('COMMITTING', 'TARGET_COMMITTED')],
        code: ERROR_CODES.CAS_CONFLICT,
      },
    ] as const)('$title', async ({ id, from, moves, code }) => {
      const journal = journalOf();
      // From PREPARING: the entry as created, no transition yet.
      const before = await reach(journal, opId(id), from);
      await refusedUnchanged(journal, chain(journal, before, moves), code, before);
    });

    it('an operator-only transition inside a chain needs its audit; with it the record is an audit', async () => {
      const journal = journalOf();
      const before = await reach(journal, opId('chain-audit'), 'COMMIT_UNKNOWN');
      await refusedUnchanged(
        journal,
        chain(journal, before, [
          move('COMMIT_UNKNOWN', 'TARGET_COMMITTED'),
          move('TARGET_COMMITTED', 'COMPLETE'),
        ]),
        ERROR_CODES.ILLEGAL_TRANSITION,
        before,
      );
      const done = await chain(journal, before, [
        move('COMMIT_UNKNOWN', 'TARGET_COMMITTED', { audit: AUDIT }),
        move('TARGET_COMMITTED', 'COMPLETE'),
      ]);
      expect(done).toMatchObject({ state: 'COMPLETE', version: before.version + 2 });
      const [audited, plain] = (await journal.history(before.operation_id)).slice(-2);
      expect(audited).toMatchObject({ kind: 'audit', audit: AUDIT, to_state: 'TARGET_COMMITTED' });
      expect(plain).toMatchObject({ kind: 'transition', audit: null, to_state: 'COMPLETE' });
    });

    it('of concurrent chains and single transitions from one version, exactly one is written', async () => {
      const journal = journalOf();
      const before = await create(journal, opId('chain-race'));
      const attempts = [
        ...Array.from({ length: 4 }, () =>
          chain(journal, before, [move('PREPARING', 'PREPARED'), move('PREPARED', 'COMMITTING')]),
        ),
        ...Array.from({ length: 4 }, () => step(journal, before, 'FAILED_PRE_COMMIT')),
      ];
      const settled = await Promise.allSettled(attempts);
      const won = settled.filter((s) => s.status === 'fulfilled');
      expect(won).toHaveLength(1);
      const winner = (won[0] as PromiseFulfilledResult<CommitJournalEntry>).value;
      expect(await journal.get(before.operation_id)).toEqual(winner);
      expect(await journal.history(before.operation_id)).toHaveLength(winner.version);
    });
  });
}
