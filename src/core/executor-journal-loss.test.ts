import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../contracts/errors.ts';
import { MemoryJournal } from '../adapters/journal/memory/memory-journal.ts';
import { changeFile, readFileRows } from '../cli/embedded-files.test-support.ts';
import type { SourceConnector, TargetConnector } from '../ports/connector.ts';
import type { FaultPoints } from '../ports/fault-points.ts';
import { NO_FAULTS } from '../ports/fault-points.ts';
import { RecoveryAwareExecutor } from './executor.ts';
import { COMMITTED_BEFORE_JOURNAL } from './fence-decision.ts';
import {
  EmbeddedPlace,
  FENCE_LOCATION,
  PARTITION,
  PARTITION_ROWS,
  PLACE_INTENT_DIGEST as INTENT,
  PLACE_LEASE_TTL_MS as TTL,
  PLACE_OPERATION_ID as OP,
  SimulatedCrash,
  TARGET_IDENTITY,
  crashAt,
  fileStateSink,
  makeDir,
  newCounts,
  parkAt,
  placeExecutor,
  targetRowCounts,
} from './fixtures/embedded-route.ts';

/**
 * The target fence is the last line of defense (issue 10): a journal that is lost, reset, restored
 * from an older copy or forked never gives a second write, and a fence missing where the journal
 * says it was prepared stops the run. The embedded engine's real target, in-memory journals standing in for the
 * journal each deployment sees.
 */
const place = new EmbeddedPlace('dpone-journal-loss-');
beforeEach(() => place.enter());
afterEach(() => place.leave());

interface RunOptions {
  readonly faults?: FaultPoints;
  readonly unsafe?: string;
  readonly intent?: string;
  readonly fenceLocation?: string;
}

/** An executor on this test's place with `journal`, recording the fence location it expects. */
function runner(journal: MemoryJournal, holder: string, options: RunOptions = {}) {
  const { fenceLocation = FENCE_LOCATION, ...rest } = options;
  return placeExecutor(place, holder, { ...rest, journal, metadata: { fence_location: fenceLocation } });
}

/** Each source row exactly `times` times in the target, counted from the target's rows. */
function expectTargetRows(times: number): void {
  const counts = targetRowCounts(join(place.dir, 'target.db'));
  expect([...counts.values()]).toEqual(times === 0 ? [] : Array(PARTITION_ROWS).fill(times));
}

/** A first worker (w1) on `journal` that dies at `point`: what the test's retry then finds. */
async function crashFirstAt(journal: MemoryJournal, point: string): Promise<void> {
  const first = await runner(journal, 'w1', { faults: crashAt(point) });
  await expect(first.run()).rejects.toBeInstanceOf(SimulatedCrash);
}

function fenceRow(): Record<string, unknown> | undefined {
  return readFileRows(join(place.dir, 'target.db'), 'SELECT epoch, holder, status FROM _dpone_fence')[0];
}

function dropFenceRow(): void {
  changeFile(join(place.dir, 'target.db'), 'DELETE FROM _dpone_fence');
}

async function transitions(journal: MemoryJournal) {
  return (await journal.history(OP))
    .filter((r) => r.kind !== 'lease')
    .map((r) => `${r.to_state}:${r.evidence.reason}`);
}

describe('executor: the fence is the last line of defense', () => {
  it('a lost journal after the commit: the fence proves it, the new journal catches up, nothing is written', async () => {
    const first = await runner(new MemoryJournal(), 'w1');
    expect(await first.run()).toMatchObject({ status: 'committed', mutated: true });
    const fresh = new MemoryJournal();
    const retry = await runner(fresh, 'w2');
    expect(await retry.run()).toMatchObject({
      status: 'already-complete',
      state: 'COMPLETE',
      mutated: false,
    });
    expect([retry.counts.source, retry.counts.mutate]).toEqual([0, 0]);
    expectTargetRows(1);
    expect(await transitions(fresh)).toEqual([
      'PREPARING:intent:created',
      `PREPARED:${COMMITTED_BEFORE_JOURNAL}`,
      `COMMITTING:${COMMITTED_BEFORE_JOURNAL}`,
      `TARGET_COMMITTED:${COMMITTED_BEFORE_JOURNAL}`,
      'COMPLETE:state:complete',
    ]);
    const proof = (await fresh.history(OP)).find((r) => r.to_state === 'TARGET_COMMITTED');
    expect(proof?.evidence).toMatchObject({ fence_status: 'committed', fence_epoch: 1, rows_written: 3 });
  });

  it('a journal restored to PREPARED after the commit: the retry adopts the commit and writes nothing', async () => {
    const first = await runner(new MemoryJournal(), 'w1');
    await first.run();
    const restored = new MemoryJournal();
    let entry = (
      await restored.createIntent({
        operationId: OP,
        intentDigest: INTENT,
        metadata: { workload_id: 'w', target_identity: TARGET_IDENTITY },
        nowMs: place.now,
      })
    ).entry;
    entry = await restored.acquireLease({
      operationId: OP,
      expectedVersion: entry.version,
      holder: 'w1',
      ttlMs: TTL,
      nowMs: place.now,
    });
    await restored.compareAndSet({
      operationId: OP,
      expectedVersion: entry.version,
      expectedStates: new Set(['PREPARING']),
      nextState: 'PREPARED',
      evidence: { reason: 'fence:prepared' },
      nowMs: place.now,
    });
    place.now += TTL + 1;
    const retry = await runner(restored, 'w2');
    expect(await retry.run()).toMatchObject({ status: 'already-complete', mutated: false });
    expect(retry.counts.mutate).toBe(0);
    expectTargetRows(1);
  });

  it('a reset journal reissues epoch 1: the fence holds it for another holder, so the lease moves above it', async () => {
    // The first worker prepared epoch 1 and died before writing; its journal is gone.
    await crashFirstAt(new MemoryJournal(), 'source.read:before');
    expect(fenceRow()).toMatchObject({ epoch: 1, holder: 'w1' });
    const fresh = new MemoryJournal();
    const retry = await runner(fresh, 'w2');
    expect(await retry.run()).toMatchObject({ status: 'committed', mutated: true, fenceEpoch: 2 });
    expect(fenceRow()).toMatchObject({ epoch: 2, holder: 'w2', status: 'committed' });
    expect((await fresh.get(OP))?.last_epoch).toBe(2);
    expectTargetRows(1);
  });

  it('a forked journal while the first worker is parked before its write: exactly one write, the zombie is fenced', async () => {
    const pause = parkAt('cas:PREPARED->COMMITTING:after');
    const zombie = await runner(new MemoryJournal(), 'w1', { faults: pause.faults });
    const zombieRun = zombie.run();
    await pause.parked;
    const fork = await runner(new MemoryJournal(), 'w2');
    expect(await fork.run()).toMatchObject({ status: 'committed', mutated: true });
    pause.release();
    await expect(zombieRun).rejects.toMatchObject({ code: ERROR_CODES.FENCED });
    expectTargetRows(1);
  });

  it('the same fork writes twice with the fence before issue 10 (guard-epoch-only): the test can fail', async () => {
    const pause = parkAt('cas:PREPARED->COMMITTING:after');
    const zombie = await runner(new MemoryJournal(), 'w1', {
      faults: pause.faults,
      unsafe: 'guard-epoch-only',
    });
    const zombieRun = zombie.run();
    await pause.parked;
    const fork = await runner(new MemoryJournal(), 'w2', { unsafe: 'guard-epoch-only' });
    await fork.run();
    pause.release();
    await zombieRun.catch(() => undefined);
    expectTargetRows(2);
  });

  it('a write the target refuses as already committed is never claimed: mutated false, already-complete', async () => {
    // A commit lands between this attempt's prepare (which saw none) and its write: the guard
    // refuses the write (applied: false) and the fence proves a commit that is not this attempt's.
    await (await runner(new MemoryJournal(), 'w1')).run();
    await runner(new MemoryJournal(), 'w2'); // opens the source and the target this test wraps
    let writes = 0;
    const inner = place.open.at(-1) as TargetConnector;
    const blind: TargetConnector = {
      identity: inner.identity,
      capability: inner.capability,
      fenceLocation: inner.fenceLocation,
      prepareFence: async (fence, mode) => ({
        ...(await inner.prepareFence(fence, mode)),
        status: 'not-committed',
        committedEpoch: null,
        rowsWritten: null,
      }),
      mutate: (request) => (writes++, inner.mutate(request)),
      queryFence: (id) => inner.queryFence(id),
      close: () => inner.close(),
      [Symbol.asyncDispose]: () => inner.close(),
    };
    const engine = new RecoveryAwareExecutor({
      journal: new MemoryJournal(),
      source: place.open.at(-2) as SourceConnector,
      target: blind,
      state: fileStateSink(makeDir(join(place.dir, 'state'))),
      faults: NO_FAULTS,
      clock: place.clock,
    });
    const result = await engine.execute({
      operationId: OP,
      intentDigest: INTENT,
      metadata: { workload_id: 'w', target_identity: TARGET_IDENTITY, fence_location: FENCE_LOCATION },
      strategy: 'append',
      partitionColumn: PARTITION.column,
      partitionValue: PARTITION.value,
      holder: 'w3',
      leaseTtlMs: TTL,
    });
    expect(result).toMatchObject({ status: 'already-complete', state: 'COMPLETE', mutated: false });
    expect(writes).toBe(1); // it tried, the guard refused
    expectTargetRows(1);
  });

  it('another intent for the same operation id, with a journal that does not know the first: refused at the target', async () => {
    await (await runner(new MemoryJournal(), 'w1')).run();
    const other = await runner(new MemoryJournal(), 'w2', { intent: `sha256:${'d'.repeat(64)}` });
    await expect(other.run()).rejects.toMatchObject({ code: ERROR_CODES.INTENT_CONFLICT });
    expect([other.counts.source, other.counts.mutate]).toEqual([0, 0]);
    expectTargetRows(1);
  });

  it('PREPARED with the fence row gone: DIVERGED, no journal change, and no fence row is created', async () => {
    const journal = new MemoryJournal();
    await crashFirstAt(journal, 'cas:PREPARING->PREPARED:after');
    dropFenceRow();
    const before = await journal.get(OP);
    const retry = await runner(journal, 'w1');
    await expect(retry.run()).rejects.toMatchObject({
      code: ERROR_CODES.DIVERGED,
      fields: { state: 'PREPARED' },
    });
    expect(await journal.get(OP)).toEqual(before);
    expect(fenceRow()).toBeUndefined();
    expect([retry.counts.source, retry.counts.mutate]).toEqual([0, 0]);
    expectTargetRows(0);
  });

  it('COMMITTING with the fence row gone: COMMIT_UNKNOWN (fence:missing), never not-committed, nothing written', async () => {
    const journal = new MemoryJournal();
    await crashFirstAt(journal, 'cas:PREPARED->COMMITTING:after');
    dropFenceRow();
    place.now += TTL + 1;
    const retry = await runner(journal, 'w2');
    await expect(retry.run()).rejects.toMatchObject({ code: ERROR_CODES.COMMIT_UNKNOWN });
    expect((await journal.history(OP)).at(-1)).toMatchObject({
      to_state: 'COMMIT_UNKNOWN',
      evidence: { reason: 'fence:missing', fence_status: 'unknown' },
    });
    expect(fenceRow()).toBeUndefined();
    expectTargetRows(0);
  });

  it('a fence location other than the journal recorded: DIVERGED before any source or target I/O', async () => {
    const journal = new MemoryJournal();
    await crashFirstAt(journal, 'target.mutate:after');
    const moved = await runner(journal, 'w2', { fenceLocation: 'warehouse:dw._dpone_fence' });
    await expect(moved.run()).rejects.toMatchObject({ code: ERROR_CODES.DIVERGED });
    expect(moved.counts).toEqual(newCounts());
    expectTargetRows(1);
  });
});
