import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DponeError, ERROR_CODES } from '../contracts/errors.ts';
import type { MemoryJournal } from '../adapters/journal/memory/memory-journal.ts';
import type { TargetFlaws } from '../ports/unsafe-variants.ts';
import type { TargetCommitJournalPort } from '../ports/journal.ts';
import type { CallCounts, PlaceExecutor, PlaceExecutorOptions } from './fixtures/embedded-route.ts';
import {
  EmbeddedPlace,
  PARTITION_ROWS,
  PLACE_LEASE_TTL_MS as TTL,
  PLACE_OPERATION_ID as OP,
  SimulatedCrash,
  crashAt,
  fileStateSink,
  makeDir,
  newCounts,
  parkAt,
  placeExecutor,
  targetRowCounts,
} from './fixtures/embedded-route.ts';

const place = new EmbeddedPlace('dpone-exec-');
beforeEach(() => place.enter());
afterEach(() => place.leave());

/** An executor on this test's place; the test's journal unless another is given. */
function executor(
  holder: string,
  options: Omit<PlaceExecutorOptions, 'journal'> & { journal?: TargetCommitJournalPort } = {},
): Promise<PlaceExecutor> {
  return placeExecutor(place, holder, { ...options, journal: options.journal ?? place.journal });
}

/** Each source row exactly `times` times in the target, counted from the target's rows. */
function expectTargetRows(times: number): void {
  const counts = targetRowCounts(join(place.dir, 'target.db'));
  expect([...counts.values()]).toEqual(times === 0 ? [] : Array(PARTITION_ROWS).fill(times));
}

async function state(): Promise<string | undefined> {
  return (await place.journal.get(OP))?.state;
}

describe('RecoveryAwareExecutor on the embedded route', () => {
  it('first attempt mutates once and completes', async () => {
    const first = await executor('w1');
    const outcome = await first.run();
    expect(outcome).toMatchObject({ status: 'committed', state: 'COMPLETE', rowsWritten: 3, mutated: true });
    expect(first.counts.mutate).toBe(1);
    expectTargetRows(1);
  });

  it('COMPLETE returns the recorded result after one fence read, without the source or a write', async () => {
    await (await executor('w1')).run();
    const retry = await executor('w2');
    const outcome = await retry.run();
    expect(outcome).toMatchObject({ status: 'already-complete', rowsWritten: 3, mutated: false });
    expect(retry.counts).toEqual({ ...newCounts(), query: 1 });
    expectTargetRows(1);
  });

  it('a retry under the same holder name still installs its epoch in the fence', async () => {
    // The first lease rides on the create: crashing right after it leaves the lease held, unfenced.
    const crashed = await executor('pod-0', { faults: crashAt('journal.create:after') });
    await expect(crashed.run()).rejects.toBeInstanceOf(SimulatedCrash);
    expect((await place.journal.get(OP))?.lease?.holder).toBe('pod-0');
    const retry = await executor('pod-0');
    expect(await retry.run()).toMatchObject({ state: 'COMPLETE', mutated: true });
    expectTargetRows(1);
  });

  it('an intent conflict fails before any source or target I/O', async () => {
    await (await executor('w1', { faults: crashAt('cas:PREPARING->PREPARED:after') })).run().catch(() => {});
    const other = await executor('w2', { intent: `sha256:${'d'.repeat(64)}` });
    await expect(other.run()).rejects.toMatchObject({ code: ERROR_CODES.INTENT_CONFLICT });
    expect(other.counts).toEqual(newCounts());
    expectTargetRows(0);
  });

  it('COMMITTING with a committed fence completes without a second mutation', async () => {
    const crashed = await executor('w1', { faults: crashAt('target.mutate:after') });
    await expect(crashed.run()).rejects.toBeInstanceOf(SimulatedCrash);
    expect(await state()).toBe('COMMITTING');
    place.now += TTL + 1;
    const retry = await executor('w2');
    expect(await retry.run()).toMatchObject({ status: 'completed-after-recovery', mutated: false });
    expect(retry.counts.mutate).toBe(0);
    const reasons = (await place.journal.history(OP)).map(
      (record) => `${record.to_state}:${record.evidence.reason}`,
    );
    expect(reasons).toContain('TARGET_COMMITTED:fence:committed');
    expectTargetRows(1);
  });

  it('COMMITTING with a not-committed fence mutates exactly once more', async () => {
    const crashed = await executor('w1', { faults: crashAt('cas:PREPARED->COMMITTING:after') });
    await expect(crashed.run()).rejects.toBeInstanceOf(SimulatedCrash);
    expect(crashed.counts.mutate).toBe(0);
    place.now += TTL + 1;
    const retry = await executor('w2');
    expect(await retry.run()).toMatchObject({ state: 'COMPLETE', mutated: true });
    expect(retry.counts.mutate).toBe(1);
    expectTargetRows(1);
  });

  it('an outcome the target cannot prove becomes COMMIT_UNKNOWN and is never replayed', async () => {
    const crashed = await executor('w1', { faults: crashAt('cas:PREPARED->COMMITTING:after') });
    await expect(crashed.run()).rejects.toBeInstanceOf(SimulatedCrash);
    place.now += TTL + 1;
    // A target without a certified fence capability cannot prove anything after process loss.
    const uncertified = await executor('w2', { capability: 'none' });
    await expect(uncertified.run()).rejects.toMatchObject({ code: ERROR_CODES.COMMIT_UNKNOWN });
    expect(await state()).toBe('COMMIT_UNKNOWN');
    const again = await executor('w3');
    await expect(again.run()).rejects.toMatchObject({ code: ERROR_CODES.COMMIT_UNKNOWN });
    expect(uncertified.counts.mutate + again.counts.mutate).toBe(0);
    expect(again.counts).toEqual(newCounts());
    expectTargetRows(0);
  });

  it('a state sink failure leaves COMMITTED_INCOMPLETE; the retry completes without mutating', async () => {
    const stateDir = join(place.dir, 'not-yet-created');
    const first = await executor('w1', { state: fileStateSink(stateDir) });
    await expect(first.run()).rejects.toMatchObject({ code: ERROR_CODES.COMMITTED_INCOMPLETE });
    expect(await state()).toBe('COMMITTED_INCOMPLETE');
    makeDir(stateDir);
    const retry = await executor('w2', { state: fileStateSink(stateDir) });
    expect(await retry.run()).toMatchObject({ state: 'COMPLETE', mutated: false });
    expect(retry.counts.mutate).toBe(0);
    expectTargetRows(1);
  });

  /** Parks one executor after PREPARED -> COMMITTING, lets a successor finish, then wakes it. */
  async function zombieRace(flaws?: TargetFlaws): Promise<{ zombie: Promise<unknown>; counts: CallCounts }> {
    const pause = parkAt('cas:PREPARED->COMMITTING:after');
    const zombie = await executor('zombie', { faults: pause.faults, ...(flaws ? { flaws } : {}) });
    const zombieRun = zombie.run();
    await pause.parked;
    place.now += TTL + 1;
    const successor = await executor('successor', flaws ? { flaws } : {});
    expect(await successor.run()).toMatchObject({ state: 'COMPLETE', mutated: true });
    pause.release();
    return { zombie: zombieRun, counts: zombie.counts };
  }

  it('a paused executor whose lease was taken over is fenced and writes nothing', async () => {
    const { zombie, counts } = await zombieRace();
    await expect(zombie).rejects.toMatchObject({ code: ERROR_CODES.FENCED });
    expect(counts.mutate).toBe(1);
    expectTargetRows(1);
  });

  it('the same race writes once even when the guard ignores the epoch: the committed status refuses it', async () => {
    // The count alone cannot catch ignore-epoch on a marker fence once the takeover has committed;
    // the pause cell that holds the takeover after its fence.prepare does (zombie-fenced).
    const { zombie } = await zombieRace({ ignoreEpoch: true });
    await expect(zombie).rejects.toMatchObject({ code: ERROR_CODES.FENCED });
    expectTargetRows(1);
  });

  it('an unreachable journal means no source or target I/O at all', async () => {
    const down = new Proxy(place.journal, {
      get: (inner, key) =>
        key === Symbol.asyncDispose
          ? inner[Symbol.asyncDispose]
          : () => Promise.reject(new Error('ECONNREFUSED')),
    });
    const rig = await executor('w1', { journal: down });
    await expect(rig.run()).rejects.toMatchObject({ code: ERROR_CODES.JOURNAL_UNAVAILABLE });
    expect(rig.counts).toEqual(newCounts());
    expectTargetRows(0);
  });

  it('a journal that fails before COMMITTING is recorded means no mutation', async () => {
    const flaky: TargetCommitJournalPort = Object.create(place.journal, {
      compareAndSet: {
        value: (request: Parameters<MemoryJournal['compareAndSet']>[0]) =>
          request.nextState === 'COMMITTING'
            ? Promise.reject(new Error('disk I/O error'))
            : place.journal.compareAndSet(request),
      },
    });
    const rig = await executor('w1', { journal: flaky });
    const error = await rig.run().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DponeError);
    expect(error).toMatchObject({ code: ERROR_CODES.JOURNAL_UNAVAILABLE });
    expect(rig.counts.mutate).toBe(0);
    expectTargetRows(0);
  });
});
