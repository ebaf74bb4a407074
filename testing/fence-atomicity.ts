import { expect } from 'vitest';
import type { FaultPointName } from '../src/contracts/fault-point-names.ts';
import { rowStream } from '../src/ports/row-stream.ts';
import type { FenceCheck, FenceFactoryOptions, FenceUnderTest } from './fence-kit.ts';
import { CONFORMANCE_COLUMNS, CONFORMANCE_ROWS, OP, fenceRef, write } from './fence-kit.ts';

/**
 * The atomicity checks of the connector kit: the data and the fence's commit are ONE transaction.
 * They catch the classic mistakes the contract checks cannot see, because every refusal there
 * still holds: rows inserted in autocommit chunks, fence statements committed on a second
 * connection, and a marker committed after the data (in a transaction of its own, or once the
 * mutation's commit returned). Each check drives the target only through its port and its fault
 * points, and reads what landed past the connector (`rows`) and through the fence's own answer.
 */

const CREATE = { create: true } as const;

/** The fault the kit injects: what a process dying at that point leaves behind. */
export class InjectedCrash extends Error {
  readonly point: string;
  constructor(point: string) {
    super(`dpone-cert kit: crash injected at ${point}`);
    this.point = point;
  }
}

/** The kit's hooks into one target: its fault points and its driver's statements, counted while armed. */
interface Probe {
  readonly options: FenceFactoryOptions;
  /** Counts (and may crash at) points only while armed: during the mutation under test. */
  armed: boolean;
}

const DRIVER_STATEMENT = 'a driver statement';

/** Hooks that call `at` with each point passed while armed. */
function probe(at: (point: string) => void): Probe {
  const hooks: Probe = {
    armed: false,
    options: {
      faults: {
        statements: true,
        hit: (point: FaultPointName) => {
          if (hooks.armed) at(point);
        },
      },
      afterDriverStatement: async () => {
        if (hooks.armed) at(DRIVER_STATEMENT);
      },
    },
  };
  return hooks;
}

const recorder = (seen: string[]): Probe => probe((point) => seen.push(point));

function crashAt(index: number): Probe {
  let count = 0;
  return probe((point) => {
    if (count++ === index) throw new InjectedCrash(point);
  });
}

/** What a crash left, read after the mutation ended: all or none of the rows, and a fence that says which. */
async function expectAllOrNothing(subject: FenceUnderTest, after: string): Promise<void> {
  const rows = await subject.rows();
  const fence = await subject.target.queryFence(OP);
  const landed = `${rows} of ${CONFORMANCE_ROWS.length} rows in the target and a fence ${fence.status}, ${after}`;
  expect([0, CONFORMANCE_ROWS.length], `all rows or none: ${landed}`).toContain(rows);
  // With no row, `unknown` is honest too (a fence that cannot prove "not committed" stalls the run; it never replays).
  expect(fence.status === 'committed', `rows present ⇔ fence committed: ${landed}`).toBe(rows > 0);
  if (fence.status === 'committed')
    expect(fence.rowsWritten, `the committed fence counts the rows that landed: ${landed}`).toBe(rows);
}

export const ATOMICITY_CHECKS: readonly FenceCheck[] = [
  {
    name: "a row stream that fails after its first chunk leaves no row and the fence not committed; the next epoch's retry commits once",
    async run(factory) {
      await using subject = await factory();
      const { target } = subject;
      await target.prepareFence(fenceRef(1), CREATE);
      const failing = rowStream(CONFORMANCE_COLUMNS, function* () {
        yield [CONFORMANCE_ROWS[0]!];
        throw new Error('dpone-cert kit: the source failed after its first chunk');
      });
      await expect(
        target.mutate(write(fenceRef(1), failing)),
        'a mutation whose source failed',
      ).rejects.toThrow();
      expect(await subject.rows(), 'rows in the target after the source failed mid-stream').toBe(0);
      expect(await target.queryFence(OP), 'the fence after the source failed mid-stream').toMatchObject({
        status: 'not-committed',
        epoch: 1,
      });
      // The retry, as the executor makes it: the next holder's epoch, then the mutation once.
      expect(await target.prepareFence(fenceRef(2), { create: false })).toMatchObject({ installed: true });
      expect(await target.mutate(write(fenceRef(2)))).toEqual({ applied: true, rowsWritten: 2, epoch: 2 });
      expect(await subject.rows()).toBe(2);
    },
  },
  {
    name: 'a crash at any point of the mutation (target.commit:before/after, around every statement, after every driver statement) leaves rows present ⇔ fence committed',
    async run(factory) {
      // A clean run lists the points this target passes while it mutates.
      const seen: string[] = [];
      {
        const points = recorder(seen);
        await using subject = await factory(points.options);
        await subject.target.prepareFence(fenceRef(1), CREATE);
        points.armed = true;
        await subject.target.mutate(write(fenceRef(1)));
        points.armed = false;
      }
      expect(
        seen,
        "the target passes target.commit:before and target.commit:after (the factory must hand its `faults` to the target's open)",
      ).toEqual(expect.arrayContaining(['target.commit:before', 'target.commit:after']));
      // Then one fresh target per point, the mutation crashed there (after a driver statement: at its nth).
      const at = seen.map((point, index) =>
        point === DRIVER_STATEMENT
          ? `${point} (#${seen.slice(0, index + 1).filter((p) => p === point).length})`
          : point,
      );
      for (const [index, point] of at.entries()) {
        const points = crashAt(index);
        await using subject = await factory(points.options);
        await subject.target.prepareFence(fenceRef(1), CREATE);
        points.armed = true;
        // Usually it rejects; a target may swallow a failure of best-effort cleanup after its commit.
        await subject.target.mutate(write(fenceRef(1))).catch(() => undefined);
        points.armed = false;
        await expectAllOrNothing(subject, `after a crash at ${point} (point ${index + 1} of ${seen.length})`);
      }
    },
  },
];
