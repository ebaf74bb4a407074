import { describe, expect, it } from 'vitest';
import type { TraceBook } from '../plan/trace.ts';
import { occurrencesOf } from '../plan/trace.ts';
import { lostCommitFault } from './lost-commit-fault.ts';
import { stallBoundMs, stallFault } from './stall-fault.ts';

const CLEAN = occurrencesOf([
  'journal.read:before',
  'fence.prepare:before',
  'fence.prepare:after',
  'target.mutate:begin',
  'target.commit:before',
  'target.commit:after',
  'fence.query:before',
  'fence.query:after',
]);

const book = (clean = CLEAN): TraceBook => ({ clean, recovery: new Map(), cleanDurationMs: 1 });

describe('stall and lost-commit planning', () => {
  it('plans every phase by both methods (the COPY by SIGSTOP only); only the COPY cell runs the variants', () => {
    const drafts = stallFault.plan({ kind: 'stall' }, { seed: 42, traces: book() });
    expect(drafts.map((draft) => draft.localId)).toEqual([
      'fence-prepare/sigstop',
      'fence-prepare/no-answer',
      'guard/sigstop',
      'guard/no-answer',
      'copy/sigstop',
      'commit/sigstop',
      'commit/no-answer',
      'fence-query/sigstop',
      'fence-query/no-answer',
    ]);
    expect(drafts.filter((draft) => draft.sensitive).map((draft) => draft.localId)).toEqual(['copy/sigstop']);
  });

  it('plans only the phases the route’s clean trace passes, and the ones the scenario names', () => {
    const noCommit = occurrencesOf(['fence.prepare:before', 'target.mutate:begin']);
    const drafts = stallFault.plan(
      { kind: 'stall', phases: ['commit', 'guard'], methods: ['sigstop'] },
      { seed: 42, traces: book(noCommit) },
    );
    expect(drafts.map((draft) => draft.localId)).toEqual(['guard/sigstop']);
    expect(lostCommitFault.plan({ kind: 'lost-commit' }, { seed: 42, traces: book(noCommit) })).toEqual([]);
    expect(lostCommitFault.plan({ kind: 'lost-commit' }, { seed: 42, traces: book() })).toHaveLength(1);
  });

  it('states its bound: two statement bounds, one connect, five seconds', () => {
    expect(stallBoundMs(4000, 8000)).toBe(21_000);
  });
});
