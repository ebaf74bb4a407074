import { describe, expect, it } from 'vitest';
import type { TraceBook } from '../plan/trace.ts';
import { occurrencesOf } from '../plan/trace.ts';
import { pauseFault } from './pause-fault.ts';
import { cleanTracePoints, COMPLETING_TAIL } from './fixtures/clean-trace.ts';

/** A server route's clean trace, its commit a message (no durable-state fingerprints: the route cannot copy state). */
const CLEAN = occurrencesOf(cleanTracePoints({ commitSent: true }));

/** What a recovery after a kill in COMMITTING does: reconcile, then the completing tail. */
const RECONCILE = occurrencesOf([
  'journal.read:before',
  'lease.acquire:before',
  'lease.acquire:after',
  'fence.prepare:before',
  'fence.prepare:after',
  ...COMPLETING_TAIL,
]);

function book(): TraceBook {
  const recovery = new Map(CLEAN.map((at) => [`${at.point}#${at.hit}`, RECONCILE]));
  return { clean: CLEAN, recovery, cleanDurationMs: 0 };
}

const plan = (spec: Record<string, unknown>) =>
  pauseFault.plan({ kind: 'pause', ...spec } as never, { seed: 42, traces: book() });

describe('pause planning', () => {
  it('pauses the first attempt at every point of the clean trace (depth 1)', () => {
    const d1 = plan({ depth: 1 });
    expect(d1.map((draft) => draft.localId)).toEqual(CLEAN.map((at) => `d1/${at.point}#1`));
    // The commit window and the fence preparation carry the unsafe variants.
    expect(d1.filter((draft) => draft.sensitive).map((draft) => draft.fault.point)).toEqual([
      'fence.prepare:before',
      'target.mutate:begin',
      'target.commit:before',
      'target.commit:sent',
      'target.commit:after',
      'target.mutate:after',
      'fence.query:before',
      'fence.query:after',
      'cas:COMMITTING->TARGET_COMMITTED:before',
    ]);
  });

  it('at depth 2 pauses reconciling recoveries only, once per durable state a kill left', () => {
    const d2 = plan({}).filter((draft) => draft.localId.startsWith('d2/'));
    const firsts = [...new Set(d2.map((draft) => `${draft.fault.point}#${draft.fault.hit}`))];
    // Without fingerprints, kills between the same two durable effects are one state: the first stands for it.
    expect(firsts).toEqual([
      'cas:PREPARED->COMMITTING:after#1',
      'target.commit:sent#1',
      'target.commit:after#1',
      'cas:COMMITTING->TARGET_COMMITTED:after#1',
      'state.complete:after#1',
      'cas:TARGET_COMMITTED->COMPLETE:after#1',
    ]);
    const group = d2.find((draft) => draft.fault.point === 'cas:PREPARED->COMMITTING:after');
    expect(group?.fault.equivalent_points).toEqual(['target.mutate:begin#1', 'target.commit:before#1']);
    // The recovery is paused until it moved out of COMMITTING, not in the completing tail.
    const points = d2
      .filter((draft) => draft.fault.point === 'target.commit:after')
      .map((draft) => draft.fault.recovery_point);
    expect(points).toEqual(RECONCILE.slice(0, 9).map((at) => `${at.point}#1`));
  });

  it('pauses only where a scenario says when it names points', () => {
    const named = plan({ points: ['target.commit:before', 'fence.prepare:before#2'] });
    expect(named.map((draft) => draft.localId)).toEqual(['target.commit:before#1', 'fence.prepare:before#2']);
  });

  it('holds the second worker where a scenario says, and names the variants only that interleaving reaches', () => {
    const held = plan({ points: ['cas:PREPARED->COMMITTING:before'], hold_second_at: 'lease.acquire:after' });
    expect(held.map((draft) => draft.localId)).toEqual([
      'cas:PREPARED->COMMITTING:before#1>held@lease.acquire:after#1',
    ]);
    expect(held[0]!.fault.hold_second_at).toBe('lease.acquire:after#1');
    expect(held[0]!.variants).toEqual(['lease-blind-cas']);
    // Without a held second worker no cell names it: the variant runs nowhere else (onlyWhereNamed).
    expect(plan({ points: ['cas:PREPARED->COMMITTING:before'] })[0]!.variants).toBeUndefined();
  });
});
