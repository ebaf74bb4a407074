import { describe, expect, it } from 'vitest';
import type { CommitJournalEntry, JournalHistoryRecord } from '../contracts/journal.ts';
import type { CommitState } from '../contracts/states.ts';
import { COMMIT_STATES, TRANSITIONS } from '../contracts/states.ts';
import type { FenceAnswer, FenceStatus } from '../ports/connector.ts';
import type { RecoveryActionName } from './recovery-actions.ts';
import { planRecovery } from './recovery-planner.ts';
import { fenceAnswer } from './fixtures/fence-answer.ts';

const OP = `sha256:${'a'.repeat(64)}`;
const NOW = 1_000_000;

function entry(state: CommitState, overrides: Partial<CommitJournalEntry> = {}): CommitJournalEntry {
  return {
    operation_id: OP,
    intent_digest: `sha256:${'b'.repeat(64)}`,
    state,
    version: 7,
    lease: null,
    last_epoch: 2,
    metadata: { workload_id: 'w', target_identity: 'embedded:events' },
    result: null,
    created_at_ms: 1,
    updated_at_ms: 2,
    ...overrides,
  };
}

function record(to: CommitState, fence?: FenceStatus): JournalHistoryRecord {
  return {
    operation_id: OP,
    version: 5,
    kind: 'transition',
    from_state: 'COMMITTING',
    to_state: to,
    at_ms: 3,
    lease_holder: 'w1',
    lease_epoch: 2,
    evidence: { reason: `fence:${fence ?? 'none'}`, ...(fence ? { fence_status: fence } : {}) },
    audit: null,
  };
}

const COMMITTED_HISTORY = [record('TARGET_COMMITTED', 'committed')];

function fence(status: FenceStatus): FenceAnswer {
  return fenceAnswer(status, 2);
}

function legalNames(plan: ReturnType<typeof planRecovery>): RecoveryActionName[] {
  return plan.actions.filter((candidate) => candidate.legal).map((candidate) => candidate.name);
}

describe('planRecovery', () => {
  it('lists every action with preconditions and an effect, whatever the state', () => {
    for (const state of COMMIT_STATES) {
      const plan = planRecovery(entry(state), [], null, { nowMs: NOW });
      expect(plan.actions.map((candidate) => candidate.name)).toEqual([
        'complete-state',
        'mark-not-committed',
        'resolve-unknown',
        'reopen',
        'expire-lease',
      ]);
      for (const candidate of plan.actions) {
        expect(candidate.preconditions.length).toBeGreaterThan(0);
        expect(candidate.effect).not.toBe('');
      }
    }
  });

  it('never offers a legal action whose transition is outside the state table', () => {
    const fences: (FenceAnswer | null)[] = [
      null,
      fence('committed'),
      fence('not-committed'),
      fence('unknown'),
    ];
    for (const state of COMMIT_STATES) {
      for (const answer of fences) {
        for (const evidenceRef of [undefined, 'TICKET-1']) {
          const plan = planRecovery(entry(state), COMMITTED_HISTORY, answer, { nowMs: NOW, evidenceRef });
          for (const candidate of plan.actions.filter((c) => c.legal)) {
            expect(candidate.transition?.from).toBe(state);
            // expire-lease ends a lease and leaves the state where it is.
            if (candidate.name === 'expire-lease') expect(candidate.transition?.to).toBe(state);
            else expect(TRANSITIONS[state]).toContain(candidate.transition?.to);
          }
          if (plan.recommended) expect(legalNames(plan)).toContain(plan.recommended);
        }
      }
    }
  });

  it('complete-state is legal and recommended from TARGET_COMMITTED and COMMITTED_INCOMPLETE with target proof', () => {
    for (const state of ['TARGET_COMMITTED', 'COMMITTED_INCOMPLETE'] as const) {
      const plan = planRecovery(entry(state), COMMITTED_HISTORY, null, { nowMs: NOW });
      expect(legalNames(plan)).toEqual(['complete-state']);
      expect(plan.recommended).toBe('complete-state');
      expect(plan.actions[0]!.transition).toEqual({ from: state, to: 'COMPLETE' });
      expect(plan.assessment.kind).toBe('operator-action');
    }
  });

  it('complete-state is refused without the fence proof in the history', () => {
    const plan = planRecovery(entry('TARGET_COMMITTED'), [record('TARGET_COMMITTED')], null, { nowMs: NOW });
    expect(plan.actions[0]!.legal).toBe(false);
    expect(plan.recommended).toBeNull();
  });

  it('reports a fence that contradicts a committed journal as inconsistent and offers nothing', () => {
    const plan = planRecovery(entry('COMMITTED_INCOMPLETE'), COMMITTED_HISTORY, fence('not-committed'), {
      nowMs: NOW,
    });
    expect(plan.assessment.kind).toBe('inconsistent');
    expect(legalNames(plan)).toEqual([]);
    expect(plan.recommended).toBeNull();
  });

  it('mark-not-committed needs the fence to prove no mutation', () => {
    for (const state of ['COMMITTING', 'COMMIT_UNKNOWN'] as const) {
      expect(legalNames(planRecovery(entry(state), [], fence('not-committed'), { nowMs: NOW }))).toContain(
        'mark-not-committed',
      );
      for (const answer of [null, fence('unknown'), fence('committed')]) {
        const plan = planRecovery(entry(state), [], answer, { nowMs: NOW, evidenceRef: 'TICKET-1' });
        expect(plan.actions[1]!.legal).toBe(false);
      }
    }
    const committing = planRecovery(entry('COMMITTING'), [], fence('not-committed'), { nowMs: NOW });
    expect(committing.recommended).toBe('mark-not-committed');
    expect(committing.actions[1]!.transition).toEqual({ from: 'COMMITTING', to: 'PREPARED' });
  });

  it('resolve-unknown follows the fence: committed -> TARGET_COMMITTED, not-committed -> PREPARED', () => {
    const committed = planRecovery(entry('COMMIT_UNKNOWN'), [], fence('committed'), { nowMs: NOW });
    expect(committed.recommended).toBe('resolve-unknown');
    expect(committed.actions[2]).toMatchObject({
      legal: true,
      transition: { from: 'COMMIT_UNKNOWN', to: 'TARGET_COMMITTED' },
      proof: 'fence:committed',
    });
    const rolledBack = planRecovery(entry('COMMIT_UNKNOWN'), [], fence('not-committed'), { nowMs: NOW });
    expect(rolledBack.recommended).toBe('resolve-unknown');
    expect(rolledBack.actions[2]).toMatchObject({
      transition: { from: 'COMMIT_UNKNOWN', to: 'PREPARED' },
      proof: 'fence:not-committed',
    });
  });

  it('resolve-unknown without fence proof needs an evidence reference and is recommended only with one', () => {
    for (const answer of [null, fence('unknown')]) {
      const bare = planRecovery(entry('COMMIT_UNKNOWN'), [], answer, { nowMs: NOW });
      expect(bare.assessment.kind).toBe('needs-evidence');
      expect(legalNames(bare)).toEqual([]);
      expect(bare.recommended).toBeNull();
      const withEvidence = planRecovery(entry('COMMIT_UNKNOWN'), [], answer, {
        nowMs: NOW,
        evidenceRef: 'INC-42',
      });
      expect(withEvidence.actions[2]).toMatchObject({
        legal: true,
        transition: { from: 'COMMIT_UNKNOWN', to: 'PREPARED' },
        proof: 'operator-evidence',
      });
      expect(withEvidence.recommended).toBe('resolve-unknown');
    }
  });

  it('an evidence reference never turns a proven commit into a retry', () => {
    const plan = planRecovery(entry('COMMIT_UNKNOWN'), [], fence('committed'), {
      nowMs: NOW,
      evidenceRef: 'INC-42',
    });
    expect(plan.actions[2]!.transition?.to).toBe('TARGET_COMMITTED');
    expect(plan.actions[1]!.legal).toBe(false);
  });

  it('refuses every action while a live executor holds the lease, and allows it once expired', () => {
    const live = { holder: 'w2', epoch: 3, expires_at_ms: NOW + 1 };
    const plan = planRecovery(entry('COMMITTING', { lease: live }), [], fence('not-committed'), {
      nowMs: NOW,
    });
    expect(plan.assessment.kind).toBe('wait-for-lease');
    // Only the operator's way out for a holder known dead; not recommended within the lease's TTL.
    expect(legalNames(plan)).toEqual(['expire-lease']);
    expect(plan.recommended).toBeNull();
    const expired = { ...live, expires_at_ms: NOW };
    const later = planRecovery(entry('COMMITTING', { lease: expired }), [], fence('not-committed'), {
      nowMs: NOW,
    });
    expect(legalNames(later)).toEqual(['mark-not-committed', 'expire-lease']);
  });

  it('recommends expire-lease when a lease outlives its TTL bound (its holder’s clock ran ahead)', () => {
    const ahead = { holder: 'pod-ahead', epoch: 2, expires_at_ms: NOW + 2 * 3_600_000 + 30_000 };
    const plan = planRecovery(entry('COMMITTING', { lease: ahead }), [], fence('not-committed'), {
      nowMs: NOW,
      leaseTtlMs: 30_000,
    });
    expect(plan.assessment).toMatchObject({ kind: 'operator-action', lease_live: true });
    expect(plan.assessment.implication).toContain('pod-ahead');
    expect(plan.recommended).toBe('expire-lease');
    expect(plan.actions.find((candidate) => candidate.name === 'expire-lease')).toMatchObject({
      name: 'expire-lease',
      legal: true,
      transition: { from: 'COMMITTING', to: 'COMMITTING' },
      proof: 'operator-assertion',
    });
    // Without the workload's TTL the bound is the largest TTL (a day): two hours is within it.
    const unbounded = planRecovery(entry('COMMITTING', { lease: ahead }), [], fence('not-committed'), {
      nowMs: NOW,
    });
    expect(unbounded.recommended).toBeNull();
    // A year ahead is a clock fault: not live at all, and an ordinary run takes it over.
    const year = { ...ahead, expires_at_ms: NOW + 365 * 86_400_000 };
    const faulted = planRecovery(entry('COMMITTING', { lease: year }), [], null, { nowMs: NOW });
    expect(faulted.assessment).toMatchObject({ kind: 'run-reconciles', lease_live: false });
  });

  it('recommends nothing where an ordinary run is the answer', () => {
    for (const state of ['PREPARING', 'PREPARED', 'FAILED_PRE_COMMIT'] as const) {
      const plan = planRecovery(entry(state), [], fence('not-committed'), { nowMs: NOW });
      expect(plan.assessment.kind).toBe('retry-safe');
      expect(plan.recommended).toBeNull();
    }
    expect(planRecovery(entry('COMMITTING'), [], fence('committed'), { nowMs: NOW }).assessment.kind).toBe(
      'run-reconciles',
    );
    expect(
      planRecovery(entry('COMPLETE'), COMMITTED_HISTORY, fence('committed'), { nowMs: NOW }).assessment.kind,
    ).toBe('complete');
  });

  it('flags a fence commit the journal never began as inconsistent', () => {
    const plan = planRecovery(entry('PREPARED'), [], fence('committed'), { nowMs: NOW });
    expect(plan.assessment.kind).toBe('inconsistent');
    expect(plan.recommended).toBeNull();
  });

  it('is pure: the same inputs give the same plan and the inputs are not changed', () => {
    const current = Object.freeze(entry('COMMIT_UNKNOWN'));
    const history = Object.freeze([...COMMITTED_HISTORY]);
    const answer = Object.freeze(fence('committed'));
    const first = planRecovery(current, history, answer, { nowMs: NOW });
    expect(planRecovery(current, history, answer, { nowMs: NOW })).toEqual(first);
  });
});
