import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryJournal } from '../adapters/journal/memory/memory-journal.ts';
import { ERROR_CODES } from '../contracts/errors.ts';
import type { CommitJournalEntry } from '../contracts/journal.ts';
import type { FenceRef, TargetConnector } from '../ports/connector.ts';
import { rowStreamOf } from '../ports/row-stream.ts';
import { TARGET_IDENTITY, openEmbeddedTarget } from './fixtures/embedded-route.ts';
import type { RecoveryApplyDeps } from './recovery-apply-rules.ts';
import { applyRecovery } from './recovery-apply.ts';

/**
 * Operator actions fence first (issue 30): an action that claims the fence's proof takes the next
 * lease epoch, raises it in the real target fence, and only then reads the proof, so a holder
 * still inside its commit cannot land it afterwards; the audit names the epoch it installed.
 */
const OP = `sha256:${'c'.repeat(64)}`;
const INTENT = `sha256:${'d'.repeat(64)}`;
const columns = ['day', 'id'] as const;
let dir: string;
let now = 10_000;
const clock = { nowMs: () => now };

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'dpone-fence-first-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A journal in COMMITTING under holder w1 (epoch 1, lease expired), and the target fence at epoch 1. */
async function committingOperation() {
  const journal = new MemoryJournal();
  let entry: CommitJournalEntry = (
    await journal.createIntent({
      operationId: OP,
      intentDigest: INTENT,
      metadata: { workload_id: 'w', target_identity: TARGET_IDENTITY },
      nowMs: now,
      lease: { holder: 'w1', ttlMs: 100 },
    })
  ).entry;
  for (const [from, to] of [
    ['PREPARING', 'PREPARED'],
    ['PREPARED', 'COMMITTING'],
  ] as const) {
    entry = await journal.compareAndSet({
      operationId: OP,
      expectedVersion: entry.version,
      expectedStates: new Set([from]),
      nextState: to,
      evidence: { reason: 'test' },
      nowMs: now,
    });
  }
  const target = await openEmbeddedTarget({
    path: join(dir, 'target.db'),
    table: 'events',
    columns,
    naturalKey: ['id'],
  });
  const w1: FenceRef = { operationId: OP, epoch: 1, intentDigest: INTENT, holder: 'w1' };
  expect((await target.prepareFence(w1, { create: true })).installed).toBe(true);
  now += 1_000; // w1's lease has expired by the operator's clock
  return { journal, target, entry, w1 };
}

function deps(
  journal: MemoryJournal,
  target: TargetConnector,
  extra: Partial<RecoveryApplyDeps> = {},
): RecoveryApplyDeps {
  return { journal, fence: target, faults: { hit: () => undefined }, clock, leaseTtlMs: 100, ...extra };
}

const mutation = (fence: FenceRef) => ({
  fence,
  strategy: 'append' as const,
  partitionColumn: 'day',
  partitionValue: '2026-01-02',
  rows: rowStreamOf(columns, [['2026-01-02', 1]]),
});

describe('recovery apply fences first', () => {
  it('mark-not-committed raises the fence to a new epoch before it reads the proof: the old holder is then refused', async () => {
    const { journal, target, entry, w1 } = await committingOperation();
    await using _target = target;
    const result = await applyRecovery(deps(journal, target), {
      operationId: OP,
      action: 'mark-not-committed',
      expectedVersion: entry.version,
      actor: 'platform:alice@example.com',
      reason: 'worker lost',
    });
    expect(result.audit.fence_epoch).toBe(2);
    expect([result.after.state, result.after.lease, result.after.last_epoch]).toEqual(['PREPARED', null, 2]);
    expect((await target.queryFence(OP)).epoch).toBe(2);
    // The holder that was still inside its commit: its guard no longer matches, nothing lands.
    await expect(target.mutate(mutation(w1))).rejects.toMatchObject({ code: ERROR_CODES.FENCED });
    expect((await target.queryFence(OP)).status).toBe('not-committed');
    const history = await journal.history(OP);
    expect(history.at(-1)).toMatchObject({ kind: 'audit', audit: { fence_epoch: 2 } });
    expect(history.at(-2)).toMatchObject({
      kind: 'lease',
      lease_holder: 'recovery/platform:alice@example.com',
    });
  });

  it('a commit that lands before the raise turns the proof around: nothing is applied and the lease is handed back', async () => {
    const { journal, target, entry, w1 } = await committingOperation();
    await using _target = target;
    // Read before the raise, the fence said not-committed; the holder then commits.
    const racing = {
      queryFence: (id: string) => target.queryFence(id),
      prepareFence: async (fence: FenceRef, mode: { create: boolean }) => {
        await target.mutate(mutation(w1));
        return target.prepareFence(fence, mode);
      },
    };
    await expect(
      applyRecovery(deps(journal, target, { fence: racing }), {
        operationId: OP,
        action: 'mark-not-committed',
        expectedVersion: entry.version,
        actor: 'platform:alice@example.com',
        reason: 'worker lost',
      }),
    ).rejects.toMatchObject({ code: ERROR_CODES.ILLEGAL_TRANSITION });
    const after = (await journal.get(OP))!;
    expect([after.state, after.lease]).toEqual(['COMMITTING', null]);
    expect((await journal.history(OP)).at(-1)?.evidence.reason).toBe('recovery:lease-returned');
    expect((await target.queryFence(OP)).status).toBe('committed');
  });

  it('the recovery-without-fence variant reads the proof as it was: a later commit makes its audit false', async () => {
    const { journal, target, entry, w1 } = await committingOperation();
    await using _target = target;
    const result = await applyRecovery(deps(journal, target, { withoutFence: true }), {
      operationId: OP,
      action: 'mark-not-committed',
      expectedVersion: entry.version,
      actor: 'platform:alice@example.com',
      reason: 'worker lost',
    });
    expect(result.audit.fence_epoch).toBeUndefined();
    expect((await target.mutate(mutation(w1))).applied).toBe(true);
    expect((await target.queryFence(OP)).status).toBe('committed');
  });

  it('expire-lease ends a lease with an audit record, state unchanged; the next holder takes a newer epoch', async () => {
    const { journal, target } = await committingOperation();
    await using _target = target;
    const held = await journal.acquireLease({
      operationId: OP,
      expectedVersion: (await journal.get(OP))!.version,
      holder: 'dead-pod',
      ttlMs: 3_600_000,
      nowMs: now + 7_200_000,
    });
    const result = await applyRecovery(deps(journal, target), {
      operationId: OP,
      action: 'expire-lease',
      expectedVersion: held.version,
      actor: 'platform:alice@example.com',
      reason: 'pod dead, clock was 2h ahead',
    });
    expect([result.after.state, result.after.lease, result.after.version]).toEqual([
      'COMMITTING',
      null,
      held.version + 1,
    ]);
    expect((await journal.history(OP)).at(-1)).toMatchObject({
      kind: 'audit',
      audit: { action: 'expire-lease', actor: 'platform:alice@example.com' },
      evidence: { reason: 'recovery:expire-lease', previous_holder: 'dead-pod' },
    });
    await expect(
      applyRecovery(deps(journal, target), {
        operationId: OP,
        action: 'expire-lease',
        expectedVersion: result.after.version,
        actor: 'platform:alice@example.com',
        reason: 'again',
      }),
    ).rejects.toMatchObject({ code: ERROR_CODES.ILLEGAL_TRANSITION });
  });
});
