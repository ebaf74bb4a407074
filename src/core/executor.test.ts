import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DponeError, ERROR_CODES } from '../contracts/errors.ts';
import { MemoryJournal } from '../adapters/journal/memory/memory-journal.ts';
import { SqliteSource } from '../../connectors/sqlite/sqlite-source.ts';
import { SqliteTarget, openTargetDatabase } from '../../connectors/sqlite/sqlite-target.ts';
import { sqliteDialect } from '../../connectors/sqlite/sqlite-dialect.ts';
import { SQLITE_FENCE_LOCATION } from '../../connectors/sqlite/sqlite-fence.ts';
import { MarkerTarget } from '../adapters/connectors/marker-fence/marker-target.ts';
import { flawedProtocol } from '../adapters/connectors/marker-fence/marker-unsafe-target.ts';
import type { TargetFlaws } from '../ports/unsafe-variants.ts';
import { UNSAFE_SQLITE_VARIANTS } from '../../connectors/sqlite/sqlite-unsafe-variants.ts';
import type { FenceCapabilityKind } from '../ports/connector.ts';
import type { FaultPoints } from '../ports/fault-points.ts';
import { NO_FAULTS } from '../ports/fault-points.ts';
import type { TargetCommitJournalPort } from '../ports/journal.ts';
import type { StateSink } from '../ports/state-sink.ts';
import type { OperationRequest } from './executor.ts';
import { RecoveryAwareExecutor } from './executor.ts';
import type { CallCounts } from './fixtures/embedded-route.ts';
import {
  COLUMNS,
  PARTITION,
  PARTITION_ROWS,
  countingSource,
  countingTarget,
  fileStateSink,
  makeDir,
  newCounts,
  seedSource,
  targetRowCounts,
} from './fixtures/embedded-route.ts';

const OP = `sha256:${'b'.repeat(64)}`;
const INTENT = `sha256:${'c'.repeat(64)}`;
const TTL = 1_000;

/** Stands in for a process death at one executor step: the executor stops right there. */
class SimulatedCrash extends Error {}
function crashAt(point: string): FaultPoints {
  return {
    hit: (p) => {
      if (p === point) throw new SimulatedCrash(p);
    },
  };
}

let dir: string;
let journal: MemoryJournal;
let now: number;
const clock = { nowMs: () => now };
const open: AsyncDisposable[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dpone-exec-'));
  seedSource(join(dir, 'source.db'));
  journal = new MemoryJournal();
  now = 1_000_000;
});
afterEach(async () => {
  for (const item of open.splice(0)) await item[Symbol.asyncDispose]();
  rmSync(dir, { recursive: true, force: true });
});

interface Rig {
  readonly counts: CallCounts;
  run(): ReturnType<RecoveryAwareExecutor['execute']>;
}

async function executor(
  holder: string,
  options: {
    faults?: FaultPoints;
    state?: StateSink;
    journal?: TargetCommitJournalPort;
    intent?: string;
    capability?: FenceCapabilityKind;
    /** An unsafe variant's name, to show a test can fail. */
    unsafe?: string;
    /** Flaws of the kernel's protocol directly (also those no route offers, to show them harmless). */
    flaws?: TargetFlaws;
  } = {},
): Promise<Rig> {
  const counts = newCounts();
  const source = await SqliteSource.open(join(dir, 'source.db'), 'events', COLUMNS);
  const targetOptions = {
    path: join(dir, 'target.db'),
    table: 'events',
    columns: COLUMNS,
    naturalKey: ['id'],
  };
  const target = options.flaws
    ? new MarkerTarget(
        sqliteDialect(openTargetDatabase(targetOptions), 'events'),
        { identity: 'sqlite:events', fenceLocation: SQLITE_FENCE_LOCATION },
        flawedProtocol(options.flaws),
      )
    : options.unsafe
      ? await UNSAFE_SQLITE_VARIANTS[options.unsafe]!(targetOptions)
      : await SqliteTarget.open(targetOptions);
  open.push(source, target);
  const engine = new RecoveryAwareExecutor({
    journal: options.journal ?? journal,
    source: countingSource(source, counts),
    target: countingTarget(target, counts, options.capability),
    state: options.state ?? fileStateSink(makeDir(join(dir, 'state'))),
    faults: options.faults ?? NO_FAULTS,
    clock,
  });
  const request: OperationRequest = {
    operationId: OP,
    intentDigest: options.intent ?? INTENT,
    metadata: { workload_id: 'events-daily', target_identity: 'sqlite:events' },
    strategy: 'append',
    partitionColumn: PARTITION.column,
    partitionValue: PARTITION.value,
    holder,
    leaseTtlMs: TTL,
  };
  return { counts, run: () => engine.execute(request) };
}

/** Each source row exactly `times` times in the target, counted from the target's rows. */
function expectTargetRows(times: number): void {
  const counts = targetRowCounts(join(dir, 'target.db'));
  expect([...counts.values()]).toEqual(times === 0 ? [] : Array(PARTITION_ROWS).fill(times));
}

async function state(): Promise<string | undefined> {
  return (await journal.get(OP))?.state;
}

describe('RecoveryAwareExecutor on the embedded SQLite route', () => {
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
    expect((await journal.get(OP))?.lease?.holder).toBe('pod-0');
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
    now += TTL + 1;
    const retry = await executor('w2');
    expect(await retry.run()).toMatchObject({ status: 'completed-after-recovery', mutated: false });
    expect(retry.counts.mutate).toBe(0);
    const reasons = (await journal.history(OP)).map(
      (record) => `${record.to_state}:${record.evidence.reason}`,
    );
    expect(reasons).toContain('TARGET_COMMITTED:fence:committed');
    expectTargetRows(1);
  });

  it('COMMITTING with a not-committed fence mutates exactly once more', async () => {
    const crashed = await executor('w1', { faults: crashAt('cas:PREPARED->COMMITTING:after') });
    await expect(crashed.run()).rejects.toBeInstanceOf(SimulatedCrash);
    expect(crashed.counts.mutate).toBe(0);
    now += TTL + 1;
    const retry = await executor('w2');
    expect(await retry.run()).toMatchObject({ state: 'COMPLETE', mutated: true });
    expect(retry.counts.mutate).toBe(1);
    expectTargetRows(1);
  });

  it('an outcome the target cannot prove becomes COMMIT_UNKNOWN and is never replayed', async () => {
    const crashed = await executor('w1', { faults: crashAt('cas:PREPARED->COMMITTING:after') });
    await expect(crashed.run()).rejects.toBeInstanceOf(SimulatedCrash);
    now += TTL + 1;
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
    const stateDir = join(dir, 'not-yet-created');
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
    let release!: () => void;
    let parked!: () => void;
    const isParked = new Promise<void>((resolve) => (parked = resolve));
    const pause: FaultPoints = {
      hit: (point) => {
        if (point !== 'cas:PREPARED->COMMITTING:after') return;
        parked();
        return new Promise<void>((resolve) => (release = resolve));
      },
    };
    const zombie = await executor('zombie', { faults: pause, ...(flaws ? { flaws } : {}) });
    const zombieRun = zombie.run();
    await isParked;
    now += TTL + 1;
    const successor = await executor('successor', flaws ? { flaws } : {});
    expect(await successor.run()).toMatchObject({ state: 'COMPLETE', mutated: true });
    release();
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
    const down = new Proxy(journal, {
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
    const flaky: TargetCommitJournalPort = Object.create(journal, {
      compareAndSet: {
        value: (request: Parameters<MemoryJournal['compareAndSet']>[0]) =>
          request.nextState === 'COMMITTING'
            ? Promise.reject(new Error('disk I/O error'))
            : journal.compareAndSet(request),
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
