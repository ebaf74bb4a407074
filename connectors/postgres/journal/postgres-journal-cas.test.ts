import { describe, expect, it } from 'vitest';
import type { CommitJournalEntry } from '../../../src/contracts/journal.ts';
import { planTransition } from '../../../src/contracts/journal-rules.ts';
import { COMMIT_STATES } from '../../../src/contracts/states.ts';
import type { CommitState } from '../../../src/contracts/states.ts';
import { legalFromStates } from './postgres-journal-cas.ts';

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
