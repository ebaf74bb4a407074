import { describe, expect, it } from 'vitest';
import { MemoryJournal } from '../adapters/journal/memory/memory-journal.ts';
import type { ErrorCode } from '../contracts/errors.ts';
import { DponeError, ERROR_CODES } from '../contracts/errors.ts';
import type { FenceAnswer, SourceConnector, TargetConnector } from '../ports/connector.ts';
import { rowStreamOf } from '../ports/row-stream.ts';
import { NO_FAULTS } from '../ports/fault-points.ts';
import type { OperationRequest } from './executor.ts';
import { RecoveryAwareExecutor } from './executor.ts';

/**
 * A target that refuses for a cause a retry cannot fix (wrong password, missing database, a value
 * it cannot take) must end the attempt with that cause — not "retry" or "fence unavailable" — and
 * with the lease released, so the run after the fix is not held back by the dead attempt's lease.
 */
const OP = `sha256:${'d'.repeat(64)}`;
const INTENT = `sha256:${'e'.repeat(64)}`;
const answer = (status: FenceAnswer['status'], committed = false): FenceAnswer => ({
  status,
  epoch: 1,
  committedEpoch: committed ? 1 : null,
  rowsWritten: committed ? 1 : null,
  intentDigest: INTENT,
  holder: null,
});

const source: SourceConnector = {
  identity: 'fake:source',
  read: async () => rowStreamOf(['id'], [['1']]),
  close: async () => undefined,
  [Symbol.asyncDispose]: async () => undefined,
};

function target(fail: { prepare?: ErrorCode; mutate?: ErrorCode; fence?: FenceAnswer }): TargetConnector {
  const refuse = (code: ErrorCode) => new DponeError(code, `refused: ${code}`);
  let landed = false;
  return {
    identity: 'fake:target',
    capability: 'staging-swap-generation',
    fenceLocation: 'fake:fence',
    prepareFence: async (fence) => {
      if (fail.prepare) throw refuse(fail.prepare);
      return { ...answer('not-committed'), epoch: fence.epoch, holder: fence.holder, installed: true };
    },
    mutate: async (request) => {
      if (fail.mutate) throw refuse(fail.mutate);
      landed = true;
      return { applied: true, rowsWritten: 1, epoch: request.fence.epoch };
    },
    queryFence: async () => fail.fence ?? (landed ? answer('committed', true) : answer('not-committed')),
    close: async () => undefined,
    [Symbol.asyncDispose]: async () => undefined,
  };
}

async function run(journal: MemoryJournal, connector: TargetConnector, holder = 'w1') {
  const executor = new RecoveryAwareExecutor({
    journal,
    source,
    target: connector,
    state: { complete: async () => undefined },
    faults: NO_FAULTS,
    clock: { nowMs: () => 1_000 },
  });
  const request: OperationRequest = {
    operationId: OP,
    intentDigest: INTENT,
    metadata: { workload_id: 'w', target_identity: 'fake:target' },
    strategy: 'append',
    partitionColumn: 'day',
    partitionValue: 'd1',
    holder,
    leaseTtlMs: 60_000,
  };
  return executor.execute(request).then(
    () => null,
    (error: { code?: string }) => error.code,
  );
}

describe('a target refusal a retry cannot fix', () => {
  for (const code of [
    ERROR_CODES.AUTHENTICATION_FAILED,
    ERROR_CODES.OBJECT_NOT_FOUND,
    ERROR_CODES.INVALID_INPUT,
  ]) {
    it(`${code} at fence preparation: that code, FAILED_PRE_COMMIT, lease released`, async () => {
      const journal = new MemoryJournal();
      expect(await run(journal, target({ prepare: code }))).toBe(code);
      const entry = await journal.get(OP);
      expect(entry).toMatchObject({ state: 'FAILED_PRE_COMMIT', lease: null });
      // After the fix, another worker goes ahead at once (no CAS_CONFLICT on a dead lease).
      expect(await run(journal, target({}), 'w2')).toBeNull();
      expect((await journal.get(OP))?.state).toBe('COMPLETE');
    });
  }

  it('a retryable refusal at fence preparation keeps its code and hands the lease back (nothing was written)', async () => {
    const journal = new MemoryJournal();
    expect(await run(journal, target({ prepare: ERROR_CODES.FENCE_UNAVAILABLE }))).toBe(
      ERROR_CODES.FENCE_UNAVAILABLE,
    );
    expect(await journal.get(OP)).toMatchObject({ state: 'FAILED_PRE_COMMIT', lease: null });
  });

  it('DATA_REJECTED from the mutation, fence proves nothing landed: DATA_REJECTED, handed back (FAILED_PRE_COMMIT)', async () => {
    const journal = new MemoryJournal();
    expect(await run(journal, target({ mutate: ERROR_CODES.DATA_REJECTED }))).toBe(ERROR_CODES.DATA_REJECTED);
    expect(await journal.get(OP)).toMatchObject({ state: 'FAILED_PRE_COMMIT', lease: null });
  });

  it('DATA_REJECTED from the mutation but the fence proves a commit: the proof wins', async () => {
    const journal = new MemoryJournal();
    expect(
      await run(journal, target({ mutate: ERROR_CODES.DATA_REJECTED, fence: answer('committed', true) })),
    ).toBeNull();
    expect((await journal.get(OP))?.state).toBe('COMPLETE');
  });

  it('DATA_REJECTED from the mutation, fence cannot tell: COMMIT_UNKNOWN, never the refusal', async () => {
    const journal = new MemoryJournal();
    expect(await run(journal, target({ mutate: ERROR_CODES.DATA_REJECTED, fence: answer('unknown') }))).toBe(
      ERROR_CODES.COMMIT_UNKNOWN,
    );
  });
});
