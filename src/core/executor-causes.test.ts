import { describe, expect, it } from 'vitest';
import { MemoryJournal } from '../adapters/journal/memory/memory-journal.ts';
import { DponeError, ERROR_CODES } from '../contracts/errors.ts';
import type {
  FenceAnswer,
  FenceRef,
  RowStream,
  SourceConnector,
  TargetConnector,
} from '../ports/connector.ts';
import { rowStreamOf } from '../ports/row-stream.ts';
import { NO_FAULTS } from '../ports/fault-points.ts';
import { RecoveryAwareExecutor } from './executor.ts';

/**
 * A cause no retry can fix (privilege, rejected data, bad input) may decide the exit code only where
 * nothing can have been written: a failed source read, or a mutation the fence proved did not land.
 * An unknown outcome stays COMMIT_UNKNOWN whatever the driver said.
 */
const OP = `sha256:${'1'.repeat(64)}`;
const INTENT = `sha256:${'2'.repeat(64)}`;
const ROWS = () => rowStreamOf(['id'], [['1']]);
const denied = new DponeError(ERROR_CODES.PERMISSION_DENIED, 'the server target denied a privilege', {
  sqlstate: '42501',
  hint: 'the target role needs UPDATE on table public._dpone_fence',
});
const rejected = new DponeError(ERROR_CODES.DATA_REJECTED, 'the server target rejected the data', {
  sqlstate: '23502',
  hint: 'a NOT NULL column of the target got no value',
});

function source(read: () => Promise<RowStream>): SourceConnector {
  return { identity: 'fake:src', read, close: async () => {}, [Symbol.asyncDispose]: async () => {} };
}

/** A target whose mutation throws `failure` and whose fence then answers `after`. */
function target(failure: unknown, after: FenceAnswer['status']): TargetConnector & { mutations: number } {
  let status: FenceAnswer['status'] = 'unknown';
  let epoch: number | null = null;
  const answer = (): FenceAnswer => ({
    status,
    epoch,
    committedEpoch: status === 'committed' ? epoch : null,
    rowsWritten: status === 'committed' ? 1 : null,
    intentDigest: epoch === null ? null : INTENT,
    holder: epoch === null ? null : 'h1',
  });
  const fake = {
    identity: 'fake:tgt',
    capability: 'transactional-commit-marker' as const,
    fenceLocation: 'fake:fence',
    mutations: 0,
    prepareFence: async (fence: FenceRef, mode: { create: boolean }) => {
      if (epoch === null && !mode.create) return { ...answer(), installed: false };
      if (status === 'unknown') status = 'not-committed';
      epoch = Math.max(epoch ?? 0, fence.epoch);
      return { ...answer(), installed: epoch === fence.epoch };
    },
    mutate: async () => {
      fake.mutations += 1;
      status = after;
      if (after === 'unknown') epoch = null; // the target can no longer say
      throw failure;
    },
    queryFence: async (): Promise<FenceAnswer> => answer(),
    close: async () => {},
    [Symbol.asyncDispose]: async () => {},
  };
  return fake;
}

async function run(src: SourceConnector, tgt: TargetConnector) {
  const journal = new MemoryJournal();
  const executor = new RecoveryAwareExecutor({
    journal,
    source: src,
    target: tgt,
    state: { complete: async () => {} },
    faults: NO_FAULTS,
    clock: { nowMs: () => 1_000_000 },
  });
  const outcome = await executor
    .execute({
      operationId: OP,
      intentDigest: INTENT,
      metadata: { workload_id: 'w', target_identity: 'fake:tgt', fence_location: 'fake:fence' },
      strategy: 'append',
      partitionColumn: 'day',
      partitionValue: '2026-07-05',
      holder: 'h1',
      leaseTtlMs: 30_000,
    })
    .catch((error: unknown) => error);
  return { outcome, entry: await journal.get(OP), history: await journal.history(OP) };
}

describe('executor: causes a retry cannot fix', () => {
  it('a source read refused for a privilege ends FAILED_PRE_COMMIT with that code, lease released', async () => {
    const tgt = target(null, 'committed');
    const { outcome, entry, history } = await run(
      source(() => Promise.reject(denied)),
      tgt,
    );
    expect(outcome).toMatchObject({
      code: ERROR_CODES.PERMISSION_DENIED,
      fields: { sqlstate: '42501', operationId: OP, state: 'PREPARED' },
    });
    expect((outcome as DponeError).message).toMatch(/nothing was written/);
    expect(entry).toMatchObject({ state: 'FAILED_PRE_COMMIT', lease: null });
    expect(history.at(-1)?.evidence).toMatchObject({ error_code: ERROR_CODES.PERMISSION_DENIED });
    expect(tgt.mutations).toBe(0);
  });

  it('a source failure without a cause stays the retry code', async () => {
    const { outcome } = await run(
      source(() => Promise.reject(new DponeError(ERROR_CODES.PRE_COMMIT_FAILED, 'read failed'))),
      target(null, 'committed'),
    );
    expect(outcome).toMatchObject({ code: ERROR_CODES.PRE_COMMIT_FAILED });
  });

  it('rejected data decides the code only after the fence proved nothing landed', async () => {
    const { outcome, entry } = await run(
      source(async () => ROWS()),
      target(rejected, 'not-committed'),
    );
    expect(outcome).toMatchObject({
      code: ERROR_CODES.DATA_REJECTED,
      fields: { sqlstate: '23502', hint: expect.stringContaining('NOT NULL') },
    });
    expect((outcome as DponeError).message).toMatch(/the fence proved nothing landed/);
    expect(entry).toMatchObject({ state: 'FAILED_PRE_COMMIT', lease: null });
  });

  it('the same refusal with an unprovable outcome is COMMIT_UNKNOWN, never a permanent "nothing written"', async () => {
    const { outcome, entry } = await run(
      source(async () => ROWS()),
      target(rejected, 'unknown'),
    );
    expect(outcome).toMatchObject({ code: ERROR_CODES.COMMIT_UNKNOWN });
    expect(entry?.state).toBe('COMMIT_UNKNOWN');
  });

  it('and when the fence proves the commit, the run succeeds whatever the driver said', async () => {
    const { outcome, entry } = await run(
      source(async () => ROWS()),
      target(rejected, 'committed'),
    );
    // Success, though not claimed as this attempt's own write: the driver's error left no receipt.
    expect(outcome).toMatchObject({
      status: expect.stringMatching(/committed|already-complete/),
      state: 'COMPLETE',
    });
    expect(entry?.state).toBe('COMPLETE');
  });
});
