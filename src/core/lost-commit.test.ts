import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { changeFile } from '../cli/embedded-files.test-support.ts';
import { ERROR_CODES } from '../contracts/errors.ts';
import { NO_FAULTS } from '../ports/fault-points.ts';
import type { RuntimeFlaws } from '../ports/unsafe-variants.ts';
import type { OperationRequest } from './executor.ts';
import { RecoveryAwareExecutor } from './executor.ts';
import {
  EmbeddedPlace,
  PARTITION,
  TARGET_IDENTITY,
  countingTarget,
  fileStateSink,
  makeDir,
  newCounts,
  openEmbeddedSource,
  openEmbeddedTarget,
  targetOptions,
  targetRowCounts,
} from './fixtures/embedded-route.ts';
import { applyRecovery } from './recovery-apply.ts';
import { planRecovery } from './recovery-planner.ts';

/**
 * A commit the target lost after the journal recorded it COMPLETE (a failover to a replica that
 * had not received it, an unflushed commit lost in a crash): never "already complete" again; an
 * operator reopens it on the fence's proof, and the next run loads it exactly once.
 */

const OP = `sha256:${'7'.repeat(64)}`;
const INTENT = `sha256:${'8'.repeat(64)}`;
const place = new EmbeddedPlace('dpone-lost-');
beforeEach(() => place.enter());
afterEach(() => place.leave());

async function run(options: { confirmComplete?: boolean; flaws?: RuntimeFlaws } = {}) {
  const counts = newCounts();
  await using source = await openEmbeddedSource(place.dir);
  await using target = await openEmbeddedTarget(targetOptions(place.dir));
  const request: OperationRequest = {
    operationId: OP,
    intentDigest: INTENT,
    metadata: { workload_id: 'w', target_identity: TARGET_IDENTITY },
    strategy: 'append',
    partitionColumn: PARTITION.column,
    partitionValue: PARTITION.value,
    holder: `w-${place.now}`,
    leaseTtlMs: 1000,
    ...(options.confirmComplete === false ? { confirmComplete: false } : {}),
  };
  const executor = new RecoveryAwareExecutor({
    journal: place.journal,
    source,
    target: countingTarget(target, counts),
    state: fileStateSink(makeDir(join(place.dir, 'state'))),
    faults: NO_FAULTS,
    clock: place.clock,
    ...(options.flaws ? { flaws: options.flaws } : {}),
  });
  return { outcome: await executor.execute(request), counts };
}

/** What a failover to a replica without the commit leaves: the fence prepared, none of the rows. */
function loseTheCommit(): void {
  changeFile(
    join(place.dir, 'target.db'),
    "DELETE FROM events; UPDATE _dpone_fence SET status = 'prepared', committed_epoch = NULL, rows_written = NULL",
  );
}

async function fenceAnswer() {
  await using target = await openEmbeddedTarget(targetOptions(place.dir));
  return target.queryFence(OP);
}

async function reopen(expectedVersion: number, evidenceRef?: string) {
  return applyRecovery(
    {
      journal: place.journal,
      fence: { queryFence: () => fenceAnswer() },
      faults: NO_FAULTS,
      clock: place.clock,
    },
    {
      operationId: OP,
      action: 'reopen',
      expectedVersion,
      actor: 'platform:oncall',
      reason: 'failover lost it',
      ...(evidenceRef ? { evidenceRef } : {}),
    },
  );
}

const rows = () => [...targetRowCounts(join(place.dir, 'target.db')).values()];

describe('a commit the target lost after COMPLETE', () => {
  it('is DIVERGED (29), never already-complete, and nothing is written or moved', async () => {
    await run();
    loseTheCommit();
    place.now += 5000;
    const before = await place.journal.get(OP);
    await expect(run()).rejects.toMatchObject({ code: ERROR_CODES.DIVERGED });
    expect(rows()).toEqual([]);
    expect(await place.journal.get(OP)).toEqual(before);
  });

  it('a healthy COMPLETE costs one fence read; the opt-out and the unsafe variant skip it (and miss the loss)', async () => {
    await run();
    place.now += 5000;
    const healthy = await run();
    expect(healthy.outcome.status).toBe('already-complete');
    expect(healthy.counts).toEqual({ ...newCounts(), query: 1 });
    loseTheCommit();
    for (const options of [{ confirmComplete: false }, { flaws: { trustsComplete: true } }]) {
      const blind = await run(options);
      expect(blind.outcome.status).toBe('already-complete');
      expect(blind.counts).toEqual(newCounts());
    }
    expect(rows()).toEqual([]);
  });

  it('reopen is recommended on the fence’s proof, raises the epoch, and the next run loads it exactly once', async () => {
    await run();
    loseTheCommit();
    place.now += 5000;
    await expect(run()).rejects.toMatchObject({ code: ERROR_CODES.DIVERGED });
    const entry = (await place.journal.get(OP))!;
    const fence = await fenceAnswer();
    const plan = planRecovery(entry, await place.journal.history(OP), fence, { nowMs: place.now });
    expect([plan.assessment.kind, plan.recommended]).toEqual(['inconsistent', 'reopen']);
    const applied = await reopen(entry.version);
    expect(applied.after.state).toBe('FAILED_PRE_COMMIT');
    expect(applied.after.lease).toBeNull();
    expect(applied.after.last_epoch).toBeGreaterThan(fence.epoch!);
    const history = await place.journal.history(OP);
    expect(history.at(-1)).toMatchObject({
      kind: 'audit',
      from_state: 'COMPLETE',
      to_state: 'FAILED_PRE_COMMIT',
    });
    const retry = await run();
    expect(retry.outcome).toMatchObject({ status: 'committed', mutated: true });
    expect(retry.outcome.fenceEpoch).toBeGreaterThan(fence.epoch!);
    expect(rows()).toEqual([1, 1, 1]);
    place.now += 5000;
    expect((await run()).outcome.status).toBe('already-complete');
    expect(rows()).toEqual([1, 1, 1]);
  });

  it('reopen is refused on a healthy COMPLETE, and where the fence is gone unless the operator records the rows absent', async () => {
    await run();
    place.now += 5000;
    const entry = (await place.journal.get(OP))!;
    await expect(reopen(entry.version)).rejects.toMatchObject({ code: ERROR_CODES.ILLEGAL_TRANSITION });
    // A healthy commit is never reopened, evidence or not: the fence proves it.
    await expect(reopen(entry.version, 'OPS-1')).rejects.toMatchObject({
      code: ERROR_CODES.ILLEGAL_TRANSITION,
    });
    // The failover lost the fence row too (it had not reached the standby either).
    changeFile(join(place.dir, 'target.db'), 'DELETE FROM events; DELETE FROM _dpone_fence');
    await expect(run()).rejects.toMatchObject({ code: ERROR_CODES.DIVERGED });
    await expect(reopen(entry.version)).rejects.toMatchObject({ code: ERROR_CODES.ILLEGAL_TRANSITION });
    expect((await place.journal.get(OP))!.state).toBe('COMPLETE');
    const applied = await reopen(entry.version, 'OPS-2:rows-absent-after-failover');
    expect(applied.after.state).toBe('FAILED_PRE_COMMIT');
    expect(applied.audit.reference).toBe('OPS-2:rows-absent-after-failover');
    expect((await run()).outcome).toMatchObject({ status: 'committed', mutated: true });
    expect(rows()).toEqual([1, 1, 1]);
  });
});
