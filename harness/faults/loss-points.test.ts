import { describe, expect, it } from 'vitest';
import { parseScenario } from '../scenario/scenario-loader.ts';
import { planCells } from '../plan/planner.ts';
import type { PlanOptions } from '../plan/planner.ts';
import type { RecordedKill, TraceBook } from '../plan/trace.ts';
import { occurrenceKey } from '../plan/trace.ts';
import { EMBEDDED_CLEAN_BOOK, EMBEDDED_CLEAN_TRACE } from './fixtures/clean-trace.ts';
import { backupPointFor, transitionPoints } from './loss-points.ts';

const CLEAN = EMBEDDED_CLEAN_TRACE;
const at = (point: string) => ({ point, hit: 1 });
const BOOK: TraceBook = EMBEDDED_CLEAN_BOOK;

/** Fingerprints as a route would record them: kills with nothing durable between share one. */
function withFingerprints(groups: readonly (readonly string[])[]): TraceBook {
  const snapshots = new Map<string, RecordedKill>();
  groups.forEach((points, index) => {
    for (const point of points)
      snapshots.set(`${point}#1`, {
        dir: `/recorded/${point}`,
        first: {
          pid: 1,
          exit_code: null,
          signal: 'SIGKILL',
          duration_ms: 1,
          last_point: point,
          role: 'first',
        },
        fingerprint: `sha256:${index}`,
      });
  });
  return { ...BOOK, snapshots };
}

async function plan(text: string, book: TraceBook = BOOK, lossModes?: PlanOptions['lossModes']) {
  return planCells([{ file: 'loss.yaml', scenario: parseScenario(text, 'loss.yaml') }], {
    variants: ['epoch-only'],
    traces: () => book,
    ...(lossModes ? { lossModes } : {}),
  });
}

describe('loss points', () => {
  it('are both sides of every CAS, the intent creation and the target commit', () => {
    expect(transitionPoints(CLEAN).map(occurrenceKey)).toEqual([
      'journal.create:after#1',
      'cas:PREPARING->PREPARED:before#1',
      'cas:PREPARING->PREPARED:after#1',
      'cas:PREPARED->COMMITTING:before#1',
      'cas:PREPARED->COMMITTING:after#1',
      'target.commit:before#1',
      'target.commit:after#1',
      'cas:COMMITTING->TARGET_COMMITTED:before#1',
      'cas:COMMITTING->TARGET_COMMITTED:after#1',
      'cas:TARGET_COMMITTED->COMPLETE:before#1',
      'cas:TARGET_COMMITTED->COMPLETE:after#1',
    ]);
  });

  it.each([
    ['journal.create:after', 'journal.read:before'],
    ['cas:PREPARING->PREPARED:before', 'journal.create:after'],
    ['cas:PREPARED->COMMITTING:before', 'journal.create:after'],
    ['cas:PREPARED->COMMITTING:after', 'cas:PREPARING->PREPARED:after'],
    ['target.commit:after', 'cas:PREPARING->PREPARED:after'],
    ['cas:COMMITTING->TARGET_COMMITTED:after', 'cas:PREPARED->COMMITTING:after'],
    ['cas:TARGET_COMMITTED->COMPLETE:after', 'cas:COMMITTING->TARGET_COMMITTED:after'],
  ])('a rollback at %s restores the journal one durable step older: %s', (point, backup) => {
    expect(backupPointFor(CLEAN, at(point))).toEqual(at(backup));
  });

  it('has no backup point outside the trace', () => {
    expect(backupPointFor(CLEAN, at('no.such:point'))).toBeNull();
  });
});

describe('loss planning', () => {
  it('runs every mode the route supports when the scenario names none, and exactly the named ones', async () => {
    const routeModes = { journal: ['wipe', 'fork'], fence: ['drop'] } as const;
    const all = await plan(
      'name: l\nfaults:\n  - kind: journal-loss\n  - kind: fence-loss\n',
      BOOK,
      routeModes,
    );
    const modes = new Set(
      all.filter((c) => c.variant === null).map((c) => `${c.kind} ${String(c.fault.mode)}`),
    );
    expect([...modes].sort()).toEqual(['fence-loss drop', 'journal-loss fork', 'journal-loss wipe']);
    const named = await plan('name: l\nfaults:\n  - kind: journal-loss\n    modes: [wal-loss, wal-loss]\n');
    expect(named.map((c) => c.id)).toContain('l/wal-loss/target.commit:after#1');
    expect(named.filter((c) => c.variant === null)).toHaveLength(transitionPoints(CLEAN).length);
  });

  it('plans fence losses only once the fence exists', async () => {
    const cells = (await plan('name: l\nfaults:\n  - kind: fence-loss\n    modes: [drop]\n')).filter(
      (c) => c.variant === null,
    );
    expect(cells.map((c) => c.fault.point)).not.toContain('journal.create:after');
    expect(cells).toHaveLength(transitionPoints(CLEAN).length - 1);
  });

  it('shares a cell between points that leave the same durable state, listing the equivalents', async () => {
    const book = withFingerprints([
      ['cas:PREPARING->PREPARED:after', 'cas:PREPARED->COMMITTING:before'],
      ['cas:PREPARED->COMMITTING:after', 'target.commit:before'],
      ['target.commit:after', 'cas:COMMITTING->TARGET_COMMITTED:before'],
    ]);
    const text = 'name: l\nfaults:\n  - kind: journal-loss\n    modes: [delete, fork]\n';
    const cells = (await plan(text, book)).filter((c) => c.variant === null);
    const commit = cells.find((c) => c.id === 'l/delete/target.commit:after#1')!;
    expect(commit.fault.equivalent_points).toEqual(['cas:COMMITTING->TARGET_COMMITTED:before#1']);
    expect(commit.params.killed).toMatchObject({ dir: '/recorded/target.commit:after' });
    expect(cells.filter((c) => c.fault.mode === 'delete')).toHaveLength(transitionPoints(CLEAN).length - 3);
    // A parked-and-released worker is no killed one: every fork point keeps its own cell.
    expect(cells.filter((c) => c.fault.mode === 'fork')).toHaveLength(transitionPoints(CLEAN).length);
    const all = await plan(text.replace('fork]', 'fork]\n    distinct_states: false'), book);
    expect(all.filter((c) => c.variant === null && c.fault.mode === 'delete')).toHaveLength(
      transitionPoints(CLEAN).length,
    );
  });

  it('gives every rollback its backup point', async () => {
    const cells = await plan('name: l\nfaults:\n  - kind: journal-loss\n    modes: [rollback]\n');
    const rollback = cells.find((c) => c.id === 'l/rollback/target.commit:after#1')!;
    expect(rollback.fault.backup_point).toBe('cas:PREPARING->PREPARED:after#1');
    expect(rollback.params.backup).toEqual(at('cas:PREPARING->PREPARED:after'));
  });

  it('repeats for the unsafe variants a zombie before its write, and a journal or fence lost after the commit', async () => {
    const cells = await plan('name: l\nfaults:\n  - kind: journal-loss\n  - kind: fence-loss\n', BOOK, {
      journal: ['wipe', 'delete', 'rollback', 'fork', 'wal-loss'],
      fence: ['drop'],
    });
    expect(cells.filter((c) => c.variant !== null).map((c) => c.id)).toEqual([
      'l/delete/target.commit:after#1@epoch-only',
      'l/drop/target.commit:after#1@epoch-only',
      'l/fork/cas:PREPARED->COMMITTING:after#1@epoch-only',
      'l/wal-loss/cas:PREPARED->COMMITTING:after#1@epoch-only',
    ]);
  });
});
