import { describe, expect, it } from 'vitest';
import type { LoadedScenario } from '../scenario/scenario-schema.ts';
import { parseScenario } from '../scenario/scenario-loader.ts';
import { planCells, selectShard } from './planner.ts';
import { EMBEDDED_ENGINE } from '../routes/route-registry.ts';
import type { TraceBook } from './trace.ts';
import { occurrenceKey, occurrencesOf } from './trace.ts';

const CLEAN = occurrencesOf([
  'journal.read:before',
  'lease.acquire:before',
  'cas:PREPARED->COMMITTING:after',
  'target.commit:before',
  'lease.acquire:before',
  'cas:COMMITTING->TARGET_COMMITTED:after',
]);
/** Recovery traces of different lengths, one per first-attempt kill. */
const RECOVERY = new Map(CLEAN.map((at, index) => [occurrenceKey(at), CLEAN.slice(index)]));
const BOOK: TraceBook = { clean: CLEAN, recovery: RECOVERY, cleanDurationMs: 100 };

function scenario(text: string): LoadedScenario {
  return { file: 'hand.yaml', scenario: parseScenario(text, 'hand.yaml') };
}

async function plan(text: string, variants: readonly string[] = []) {
  return planCells([scenario(text)], { variants, traces: () => BOOK });
}

describe('planner enumeration from a hand-made trace', () => {
  it('numbers repeated points by hit', () => {
    expect(CLEAN.map(occurrenceKey)).toContain('lease.acquire:before#2');
  });

  it('depth 1 plans one cell per trace occurrence', async () => {
    const cells = await plan('name: c\nfaults:\n  - kind: crash\n    depth: 1\n    random: 0\n');
    expect(cells).toHaveLength(CLEAN.length);
    expect(cells.map((cell) => cell.id)).toContain('c/d1/lease.acquire:before#2');
  });

  it('depth 2 adds the sum of the recovery trace lengths', async () => {
    const cells = await plan('name: c\nfaults:\n  - kind: crash\n    random: 0\n');
    const recoverySum = [...RECOVERY.values()].reduce((sum, trace) => sum + trace.length, 0);
    expect(cells.filter((cell) => cell.id.startsWith('c/d2/'))).toHaveLength(recoverySum);
    expect(cells).toHaveLength(CLEAN.length + recoverySum);
    expect(cells.map((cell) => cell.id)).toContain(
      'c/d2/target.commit:before#1>cas:COMMITTING->TARGET_COMMITTED:after#1',
    );
  });

  it('recovery_points: transitions kills each recovery run at its journal transitions only, after every first kill', async () => {
    const text = 'name: c\nfaults:\n  - kind: crash\n    random: 0\n    recovery_points: transitions\n';
    const cells = await plan(text);
    const depth2 = cells.filter((cell) => cell.id.startsWith('c/d2/'));
    const expected = [...RECOVERY.values()].flatMap((trace) =>
      trace.filter((at) => at.point.startsWith('cas:')),
    );
    expect(depth2).toHaveLength(expected.length);
    expect(depth2.every((cell) => cell.fault.recovery_point!.startsWith('cas:'))).toBe(true);
    // Depth 1 still kills at every point; every first-attempt kill still gets its recovery kills.
    expect(cells.filter((cell) => cell.id.startsWith('c/d1/'))).toHaveLength(CLEAN.length);
    expect(new Set(depth2.map((cell) => cell.fault.point))).toEqual(new Set(CLEAN.map((at) => at.point)));
    expect(cells.map((cell) => cell.id)).not.toContain('c/d2/journal.read:before#1>target.commit:before#1');
  });

  it('seeded random kills: count as asked, delays fixed by the seed', async () => {
    const text = 'name: c\nseed: 7\nfaults:\n  - kind: crash\n    depth: 1\n    random: 3\n';
    const random = (await plan(text)).filter((cell) => cell.id.startsWith('c/random/'));
    expect(random.map((cell) => cell.id)).toEqual([
      'c/random/seed7-1',
      'c/random/seed7-2',
      'c/random/seed7-3',
    ]);
    const again = (await plan(text)).filter((cell) => cell.id.startsWith('c/random/'));
    expect(again.map((cell) => cell.fault.delay_ms)).toEqual(random.map((cell) => cell.fault.delay_ms));
  });

  it('random_window: mutation aims the random kills inside the measured window, seeded', async () => {
    const text =
      'name: c\nseed: 7\nfaults:\n  - kind: crash\n    depth: 1\n    random: 3\n    random_window: mutation\n';
    const window = { begin: 'target.mutate:begin', end: 'target.commit:before', lengthMs: 400 };
    const planned = await planCells([scenario(text)], {
      variants: [],
      traces: () => ({ ...BOOK, mutationWindow: window }),
    });
    const random = planned.filter((cell) => cell.id.startsWith('c/random/'));
    expect(random.map((cell) => cell.id)).toEqual([
      'c/random/mutation/seed7-1',
      'c/random/mutation/seed7-2',
      'c/random/mutation/seed7-3',
    ]);
    for (const cell of random) {
      expect(cell.fault).toMatchObject({ after_point: 'target.mutate:begin', window_ms: 400 });
      expect(cell.fault.delay_ms).toBe(Math.floor(Number(cell.fault.window_fraction) * 400));
      expect(cell.fault.delay_ms).toBeLessThan(400);
    }
    // A plan from stored traces (no measured window) has the same ids: the gate's re-plan matches.
    const stored = (await plan(text)).filter((cell) => cell.id.startsWith('c/random/'));
    expect(stored.map((cell) => cell.id)).toEqual(random.map((cell) => cell.id));
    expect(stored.every((cell) => cell.fault.delay_ms === undefined)).toBe(true);
  });

  it('ids are stable across plans, unique and sorted', async () => {
    const text =
      'name: s\nfaults:\n  - kind: crash\n  - kind: race\n    workers: 8\n  - kind: intent-conflict\n';
    const first = (await plan(text, ['no-fence'])).map((cell) => cell.id);
    const second = (await plan(text, ['no-fence'])).map((cell) => cell.id);
    expect(second).toEqual(first);
    expect(new Set(first).size).toBe(first.length);
    expect([...first].sort()).toEqual(first);
  });

  it('repeats only the sensitive subset per variant', async () => {
    const cells = await plan(
      'name: s\nfaults:\n  - kind: race\n    workers: 2\n  - kind: race\n    workers: 8\n',
      ['a', 'b'],
    );
    expect(cells.map((cell) => cell.id)).toEqual(['s/2', 's/2@a', 's/2@b', 's/8']);
    expect(cells.find((cell) => cell.id === 's/2@b')?.variant).toBe('b');
  });

  it('shards are a disjoint cover of the plan', async () => {
    const cells = await plan('name: c\nfaults:\n  - kind: crash\n    random: 5\n');
    for (const count of [1, 2, 3, 7]) {
      const shards = Array.from({ length: count }, (_, index) =>
        selectShard(cells, { index: index + 1, count }).map((cell) => cell.id),
      );
      const all = shards.flat();
      expect(all).toHaveLength(cells.length);
      expect(new Set(all)).toEqual(new Set(cells.map((cell) => cell.id)));
    }
  });
});

describe('depth 2 over distinct durable states', () => {
  const fingerprints = ['s0', 's0', 's1', 's1', 's1', 's2'];
  const snapshots = new Map(
    CLEAN.map((at, index) => [
      occurrenceKey(at),
      {
        dir: `/snap/${index}`,
        fingerprint: fingerprints[index]!,
        first: {
          pid: 1,
          exit_code: null,
          signal: 'SIGKILL',
          duration_ms: 1,
          last_point: at.point,
          role: 'first',
        },
      },
    ]),
  );
  const book: TraceBook = { ...BOOK, snapshots };

  it('plans recovery kills once per state, naming the equivalent first-attempt points', async () => {
    const cells = await planCells([scenario('name: c\nfaults:\n  - kind: crash\n    random: 0\n')], {
      variants: [],
      traces: () => book,
    });
    const d2 = cells.filter((cell) => cell.id.startsWith('c/d2/'));
    // Representatives: occurrences 0, 2 and 5; their recovery traces have 6, 4 and 1 points.
    expect(d2).toHaveLength(6 + 4 + 1);
    const fromState1 = d2.filter((cell) => cell.fault.point === 'cas:PREPARED->COMMITTING:after');
    expect(fromState1[0]?.fault.equivalent_points).toEqual([
      'target.commit:before#1',
      'lease.acquire:before#2',
    ]);
    expect(cells.filter((cell) => cell.id.startsWith('c/d1/'))).toHaveLength(CLEAN.length);
  });

  it('distinct_states: false runs depth 2 after every first-attempt kill', async () => {
    const text = 'name: c\nfaults:\n  - kind: crash\n    random: 0\n    distinct_states: false\n';
    const cells = await planCells([scenario(text)], { variants: [], traces: () => book });
    const recoverySum = [...RECOVERY.values()].reduce((sum, trace) => sum + trace.length, 0);
    expect(cells.filter((cell) => cell.id.startsWith('c/d2/'))).toHaveLength(recoverySum);
  });
});

describe('airflow-live planning', () => {
  it('plans every case once, a seeded pod-loss case from the trace, and one sensitive cell', async () => {
    const text = 'name: a\nseed: 7\nfaults:\n  - kind: airflow-live\n';
    const cells = await plan(text, ['no-fence']);
    expect(cells.map((cell) => cell.id)).toEqual([
      'a/cleared',
      'a/identity',
      'a/pod-lost/cas:PREPARED->COMMITTING:after#1',
      'a/pod-lost/every-retry',
      'a/pod-lost/seed7-1',
      'a/pod-lost/target.commit:after#1',
      'a/retriggered',
      'a/runner-lost',
      'a/unknown',
      'a/worker-lost',
      'a/worker-lost@no-fence',
      'a/xcom-lost/missing',
      'a/xcom-lost/unreadable',
    ]);
    const seeded = cells.find((cell) => cell.id === 'a/pod-lost/seed7-1')!;
    const losses = seeded.params.losses as string[];
    expect(losses).toHaveLength(3);
    for (const loss of losses) expect(CLEAN.map(occurrenceKey)).toContain(loss);
    expect((await plan(text)).find((cell) => cell.id === seeded.id)!.params.losses).toEqual(losses);
    const some = await plan('name: a\nfaults:\n  - kind: airflow-live\n    cases: [unknown]\n');
    expect(some.map((cell) => cell.id)).toEqual(['a/unknown']);
  });
});

describe('unsafe variants per target configuration', () => {
  const VARIANTS = ['no-fence', 'io-before-intent', 'replay-unknown'];

  it('a fenced workload runs the fence and executor flaws, not replay-unknown (its fence refuses the replay)', async () => {
    const cells = await plan('name: c\nfaults:\n  - kind: crash\n    depth: 1\n    random: 0\n', VARIANTS);
    const variants = new Set(cells.flatMap((cell) => (cell.variant ? [cell.variant] : [])));
    expect([...variants].sort()).toEqual(['io-before-intent', 'no-fence']);
  });

  it('a variant that runs only where named (unclaimed-partition) runs on no crash cell', async () => {
    const cells = await plan('name: c\nfaults:\n  - kind: crash\n    depth: 1\n    random: 0\n', [
      ...VARIANTS,
      'unclaimed-partition',
    ]);
    expect(cells.some((cell) => cell.variant === 'unclaimed-partition')).toBe(false);
    expect(cells.some((cell) => cell.variant === 'no-fence')).toBe(true);
  });

  it('a fenceless workload (capability none) runs replay-unknown only, and its traces are its own', async () => {
    const keys: string[] = [];
    const cells = await planCells(
      [
        scenario(
          'name: c\nworkload:\n  fence: none\nfaults:\n  - kind: crash\n    depth: 1\n    random: 0\n',
        ),
      ],
      { variants: VARIANTS, traces: (key) => (keys.push(key), BOOK) },
    );
    const variants = new Set(cells.flatMap((cell) => (cell.variant ? [cell.variant] : [])));
    expect([...variants]).toEqual(['replay-unknown']);
    expect(cells.every((cell) => cell.workload.fence === 'none')).toBe(true);
    // A run that names no route plans the embedded engine's, by its alias.
    expect(keys).toEqual([`${EMBEDDED_ENGINE}/append/20/fence-none`]);
  });

  it('airflow-retry tries on a fenceless target are replay-unknown cells; on a fenced one, no variant cells', async () => {
    const faults = 'faults:\n  - kind: airflow-retry\n    tries: 4\n    cases: 3\n';
    const fenceless = await planCells([scenario(`name: f\nworkload:\n  fence: none\n${faults}`)], {
      variants: VARIANTS,
      traces: () => BOOK,
    });
    expect(fenceless.map((cell) => cell.id)).toEqual([
      'f/seed42-1',
      'f/seed42-1@replay-unknown',
      'f/seed42-2',
      'f/seed42-2@replay-unknown',
      'f/seed42-3',
      'f/seed42-3@replay-unknown',
    ]);
    const fenced = await planCells([scenario(`name: a\n${faults}`)], {
      variants: VARIANTS,
      traces: () => BOOK,
    });
    expect(fenced.map((cell) => cell.variant)).toEqual([null, null, null]);
  });
});
