import { describe, expect, it } from 'vitest';
import type { CommitJournalEntry } from '../../../src/contracts/journal.ts';
import { planTransition, planTransitions } from '../../../src/contracts/journal-rules.ts';
import { COMMIT_STATES } from '../../../src/contracts/states.ts';
import type { CommitState } from '../../../src/contracts/states.ts';
import { casChainValues, chainFollows, legalFromStates } from './postgres-journal-cas.ts';

function entryIn(state: CommitState): CommitJournalEntry {
  return {
    operation_id: 'sha256:' + 'a'.repeat(64),
    intent_digest: 'sha256:' + '0'.repeat(64),
    state,
    version: 3,
    lease: null,
    last_epoch: 0,
    metadata: { workload_id: 'w', target_identity: 't' },
    result: null,
    created_at_ms: 1,
    updated_at_ms: 1,
  };
}

describe('legalFromStates', () => {
  it('admits exactly the from-states the shared planner accepts, for every move with and without audit', () => {
    const audit = { actor: 'op', action: 'recover', reason: 'proof', at_ms: 2, reference: 'ticket' };
    for (const next of COMMIT_STATES) {
      for (const withAudit of [false, true]) {
        const request = {
          expectedStates: new Set<CommitState>(COMMIT_STATES),
          nextState: next,
          ...(withAudit ? { audit } : {}),
        };
        const accepted = COMMIT_STATES.filter((from) => {
          try {
            planTransition(entryIn(from), {
              ...request,
              expectedVersion: 3,
              evidence: { reason: 'x' },
              nowMs: 2,
            });
            return true;
          } catch {
            return false;
          }
        });
        expect(legalFromStates(request)).toEqual(accepted);
      }
    }
  });

  it('never admits a state outside the expected set', () => {
    const from = legalFromStates({
      expectedStates: new Set<CommitState>(['PREPARING']),
      nextState: 'COMMITTING',
    });
    expect(from).toEqual([]);
    expect(
      legalFromStates({ expectedStates: new Set<CommitState>(['PREPARED']), nextState: 'COMMITTING' }),
    ).toEqual(['PREPARED']);
  });
});

describe('chainFollows', () => {
  it('agrees with the shared planner on every two-transition chain from every state', () => {
    const audit = { actor: 'op', action: 'recover', reason: 'proof', at_ms: 2, reference: 'ticket' };
    let refused = 0;
    for (const from of COMMIT_STATES)
      for (const middle of COMMIT_STATES)
        for (const expected of COMMIT_STATES)
          for (const last of COMMIT_STATES)
            for (const withAudit of [false, true]) {
              const transitions = [
                {
                  expectedStates: new Set<CommitState>([from]),
                  nextState: middle,
                  evidence: { reason: 'a' },
                  audit,
                },
                {
                  expectedStates: new Set<CommitState>([expected]),
                  nextState: last,
                  evidence: { reason: 'b' },
                  ...(withAudit ? { audit } : {}),
                },
              ];
              // The first transition is the server's to judge (its state); the rest is chainFollows'.
              if (legalFromStates(transitions[0]!).length !== 1) continue;
              const request = { operationId: 'op', expectedVersion: 3, transitions, nowMs: 2 };
              let planned = true;
              try {
                planTransitions(entryIn(from), request);
              } catch {
                planned = false;
                refused++;
              }
              expect(chainFollows(request)).toBe(planned);
            }
    expect(refused).toBeGreaterThan(0);
  });

  it('a history row per transition: kind, from, to, evidence, and the lease up to its release', () => {
    const values = casChainValues(
      {
        operationId: 'op',
        expectedVersion: 7,
        transitions: [
          {
            expectedStates: new Set<CommitState>(['COMMITTING']),
            nextState: 'TARGET_COMMITTED',
            evidence: { reason: 'a' },
            result: { rows_written: 2, fence_epoch: 1, target_identity: 't' },
          },
          {
            expectedStates: new Set<CommitState>(['TARGET_COMMITTED']),
            nextState: 'COMPLETE',
            evidence: { reason: 'b' },
            releaseLease: true,
          },
        ],
        nowMs: 9,
      },
      ['COMMITTING'],
      'caller',
    );
    expect(values.slice(0, 6)).toEqual([
      'op',
      7,
      ['COMMITTING'],
      'COMPLETE',
      true,
      JSON.stringify({ rows_written: 2, fence_epoch: 1, target_identity: 't' }),
    ]);
    expect(JSON.parse(values[6] as string)).toEqual([
      {
        kind: 'transition',
        from: null,
        to: 'TARGET_COMMITTED',
        evidence: '{"reason":"a"}',
        audit: null,
        leased: true,
      },
      {
        kind: 'transition',
        from: 'TARGET_COMMITTED',
        to: 'COMPLETE',
        evidence: '{"reason":"b"}',
        audit: null,
        leased: false,
      },
    ]);
    expect(values.slice(7)).toEqual(['on', 9]);
  });
});
