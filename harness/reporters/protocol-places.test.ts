import { describe, expect, it } from 'vitest';
import type { CellEvidence } from '../evidence/evidence-types.ts';
import { evidenceFixture } from './fixtures/evidence-fixture.ts';
import { cellPlace, tallyPlaces } from './protocol-places.ts';
import { failNarrative } from './fail-narrative.ts';

const cells = evidenceFixture().cells;
const byId = (id: string) => cells.find((cell) => cell.id === id)!;
const failed = byId('crash/d1/target.commit:after#1');

describe('protocol places', () => {
  it('puts a compare-and-set kill on its edge of the transition table', () => {
    expect(cellPlace(byId('crash/d1/cas:PREPARED->COMMITTING:after#1'))).toEqual({
      kind: 'edge',
      from: 'PREPARED',
      to: 'COMMITTING',
    });
  });

  it('puts another kill in the state the journal held when the killed attempt ended', () => {
    // The first attempt ends at T0+15: the journal's last record by then is v3 COMMITTING (T0+14).
    expect(cellPlace(failed)).toEqual({ kind: 'state', state: 'COMMITTING' });
  });

  it('without start times, reads the state the faulted holder left before the next epoch took over', () => {
    const old: CellEvidence = {
      ...failed,
      attempts: failed.attempts.map(({ started_at_ms: _, ...attempt }) => attempt),
      journal: {
        ...failed.journal!,
        history: failed.journal!.history.map((record) =>
          record.version >= 4 ? { ...record, lease_epoch: 2 } : record,
        ),
      },
    };
    expect(cellPlace(old)).toEqual({ kind: 'state', state: 'COMMITTING' });
  });

  it('leaves a fault with no point off the diagram, and places a cas name outside the table by the journal', () => {
    expect(cellPlace(byId('race/8'))).toBeNull();
    expect(
      cellPlace({ ...failed, fault: { kind: 'crash', point: 'cas:COMPLETE->PREPARING:after' } }),
    ).toEqual({
      kind: 'state',
      state: 'COMMITTING',
    });
  });

  it('counts each place’s cells by verdict, the worst one deciding its colour', () => {
    const { places, unplaced } = tallyPlaces(cells.filter((cell) => cell.variant === null));
    const committing = places.find((tally) => tally.key === 'state:COMMITTING')!;
    expect(committing.worst).toBe('FAIL');
    expect(committing.counts.FAIL).toBe(1);
    expect(places.find((tally) => tally.key === 'edge:PREPARED->COMMITTING')!.worst).toBe('PASS');
    expect(unplaced).toBe(2); // the race and the intent conflict
  });
});

describe('FAIL narrative', () => {
  it('says who was killed where, what the journal and the target show, and which check decided', () => {
    const text = failNarrative(failed).join('\n');
    expect(text).toContain('Attempt 1 (first, pid 2001) was killed (SIGKILL) at target.commit:after.');
    expect(text).toContain('Attempt 2 (recovery, pid 2002) exited 0');
    expect(text).toContain('Under lease epoch 1 the journal recorded v3 COMMITTING (lease:acquired)');
    expect(text).toContain('the mutation landed 2 times, with 20 duplicate rows');
    expect(text).toContain('NOT matching the source');
    expect(text).toContain('Decided by mutation-count (the mutation landed 2 times (audit), expected 1).');
  });

  it('tells nothing for a cell that did not FAIL', () => {
    expect(failNarrative(byId('crash/d1/cas:PREPARED->COMMITTING:after#1'))).toEqual([]);
  });
});
