import { describe, expect, it } from 'vitest';
import type { TraceOccurrence } from '../plan/trace.ts';
import { powerLossFault } from './power-loss-fault.ts';

const trace: TraceOccurrence[] = [
  'journal.read:before',
  'journal.create:after',
  'cas:PREPARING->PREPARED:before',
  'cas:PREPARING->PREPARED:after',
  'target.commit:before',
  'target.commit:after',
].map((point) => ({ point, hit: 1 }));

describe('power-loss plan', () => {
  it('cuts the power at every transition point of the clean trace, each a cell of its own', () => {
    const drafts = powerLossFault.plan(
      { kind: 'power-loss' },
      { seed: 42, traces: { clean: trace, recovery: new Map(), cleanDurationMs: 0 } },
    );
    expect(drafts.map((d) => d.localId)).toEqual([
      'journal/journal.create:after#1',
      'journal/cas:PREPARING->PREPARED:before#1',
      'journal/cas:PREPARING->PREPARED:after#1',
      'journal/target.commit:before#1',
      'journal/target.commit:after#1',
    ]);
    expect(drafts[0]!.fault).toMatchObject({
      kind: 'power-loss',
      storage: 'journal',
      point: 'journal.create:after',
    });
  });

  it('runs journal-sync-off only where the killed attempt has committed a journal write', () => {
    const late = [
      { point: 'journal.read:before', hit: 1 },
      { point: 'cas:PREPARING->PREPARED:before', hit: 1 },
      { point: 'cas:PREPARING->PREPARED:after', hit: 1 },
    ];
    const drafts = powerLossFault.plan(
      { kind: 'power-loss' },
      { seed: 1, traces: { clean: late, recovery: new Map(), cleanDurationMs: 0 } },
    );
    expect(drafts.map((d) => [d.localId, d.sensitive, d.sensitiveTo])).toEqual([
      ['journal/cas:PREPARING->PREPARED:before#1', false, undefined],
      ['journal/cas:PREPARING->PREPARED:after#1', true, ['journal-sync-off']],
    ]);
  });
});
