import { describe, expect, it } from 'vitest';
import { MemoryJournal } from '../adapters/journal/memory/memory-journal.ts';
import { ERROR_CODES } from '../contracts/errors.ts';
import type { CommitJournalEntry } from '../contracts/journal.ts';
import type { CommitState } from '../contracts/states.ts';
import type { FenceAnswer, FenceStatus } from '../ports/connector.ts';
import type { FaultPoints } from '../ports/fault-points.ts';
import type { RecoveryApplyDeps } from './recovery-apply-rules.ts';
import type { RecoveryApplyRequest } from './recovery-apply.ts';
import { applyRecovery } from './recovery-apply.ts';
import { fenceAnswer } from './fixtures/fence-answer.ts';

const OP = `sha256:${'c'.repeat(64)}`;
let now = 10_000;
const clock = { nowMs: () => now };

/** Drives a fresh in-memory journal to `state` through the executor's own transitions. */
async function journalAt(
  state: 'COMMIT_UNKNOWN' | 'COMMITTING' | 'TARGET_COMMITTED' | 'COMMITTED_INCOMPLETE',
) {
  const journal = new MemoryJournal();
  let entry: CommitJournalEntry = (
    await journal.createIntent({
      operationId: OP,
      intentDigest: `sha256:${'d'.repeat(64)}`,
      metadata: { workload_id: 'w', target_identity: 'embedded:events' },
      nowMs: now,
    })
  ).entry;
  entry = await journal.acquireLease({
    operationId: OP,
    expectedVersion: entry.version,
    holder: 'w1',
    ttlMs: 100,
    nowMs: now,
  });
  const step = async (
    from: CommitState,
    to: CommitState,
    evidence: { reason: string; fence_status?: FenceStatus },
    release = false,
  ) => {
    entry = await journal.compareAndSet({
      operationId: OP,
      expectedVersion: entry.version,
      expectedStates: new Set([from]),
      nextState: to,
      evidence,
      nowMs: now,
      releaseLease: release,
      ...(to === 'TARGET_COMMITTED'
        ? { result: { rows_written: 3, fence_epoch: 1, target_identity: 'embedded:events' } }
        : {}),
    });
  };
  await step('PREPARING', 'PREPARED', { reason: 'fence:prepared' });
  await step('PREPARED', 'COMMITTING', { reason: 'mutation:begin' });
  if (state === 'COMMIT_UNKNOWN')
    await step('COMMITTING', 'COMMIT_UNKNOWN', { reason: 'fence:unknown', fence_status: 'unknown' }, true);
  if (state === 'TARGET_COMMITTED' || state === 'COMMITTED_INCOMPLETE')
    await step('COMMITTING', 'TARGET_COMMITTED', { reason: 'fence:committed', fence_status: 'committed' });
  if (state === 'COMMITTED_INCOMPLETE')
    await step('TARGET_COMMITTED', 'COMMITTED_INCOMPLETE', { reason: 'state:incomplete' }, true);
  now += 1_000; // any lease has expired
  return { journal, entry };
}

function fence(status: FenceStatus): { queryFence: () => Promise<FenceAnswer> } {
  return { queryFence: async () => fenceAnswer(status, 1) };
}

function deps(journal: MemoryJournal, extra: Partial<RecoveryApplyDeps> = {}): RecoveryApplyDeps {
  return { journal, faults: { hit: () => undefined }, clock, ...extra };
}

function request(entry: CommitJournalEntry, extra: Partial<RecoveryApplyRequest> = {}): RecoveryApplyRequest {
  return {
    operationId: OP,
    action: 'resolve-unknown',
    expectedVersion: entry.version,
    actor: 'platform:alice@example.com',
    reason: 'fence proves commit after pod loss',
    ...extra,
  };
}

async function snapshot(journal: MemoryJournal) {
  return { entry: await journal.get(OP), history: await journal.history(OP) };
}

/**
 * Applies `recovery` with `extra` deps, expects it refused as `refusal`, and the journal's entry and
 * history exactly as they were before; the refused attempt is returned for further checks.
 */
async function expectRefusedUnchanged(
  journal: MemoryJournal,
  extra: Partial<RecoveryApplyDeps>,
  recovery: RecoveryApplyRequest,
  refusal: Record<string, unknown>,
): Promise<{ failure: Promise<unknown> }> {
  const before = await snapshot(journal);
  const failure = applyRecovery(deps(journal, extra), recovery);
  await expect(failure).rejects.toMatchObject(refusal);
  expect(await snapshot(journal)).toEqual(before);
  return { failure };
}

describe('applyRecovery', () => {
  it('resolve-unknown with the fence’s proof of commit moves COMMIT_UNKNOWN to TARGET_COMMITTED with an audit record', async () => {
    const { journal, entry } = await journalAt('COMMIT_UNKNOWN');
    const result = await applyRecovery(deps(journal, { fence: fence('committed') }), request(entry));
    expect(result.before).toEqual({ state: 'COMMIT_UNKNOWN', version: entry.version });
    expect(result.after).toMatchObject({ state: 'TARGET_COMMITTED', version: entry.version + 1 });
    expect(result.after.result).toEqual({
      rows_written: 3,
      fence_epoch: 1,
      target_identity: 'embedded:events',
    });
    const last = (await journal.history(OP)).at(-1)!;
    expect(last).toMatchObject({
      kind: 'audit',
      from_state: 'COMMIT_UNKNOWN',
      to_state: 'TARGET_COMMITTED',
      version: entry.version + 1,
      evidence: { reason: 'recovery:fence:committed', fence_status: 'committed' },
      audit: {
        actor: 'platform:alice@example.com',
        action: 'resolve-unknown',
        reason: 'fence proves commit after pod loss',
        at_ms: now,
      },
    });
    expect(last.audit?.reference).toMatch(/^dpone-recovery:c{16}:v\d+$/);
  });

  it('complete-state runs the state sink once, then moves TARGET_COMMITTED or COMMITTED_INCOMPLETE to COMPLETE', async () => {
    for (const state of ['TARGET_COMMITTED', 'COMMITTED_INCOMPLETE'] as const) {
      const { journal, entry } = await journalAt(state);
      const completed: string[] = [];
      const sink = { complete: async (e: CommitJournalEntry) => void completed.push(e.state) };
      const result = await applyRecovery(
        deps(journal, { state: sink }),
        request(entry, { action: 'complete-state' }),
      );
      expect(completed).toEqual([state]);
      expect(result.after.state).toBe('COMPLETE');
      expect(result.after.lease).toBeNull();
    }
  });

  it('a failing state sink leaves the journal unchanged', async () => {
    const { journal, entry } = await journalAt('COMMITTED_INCOMPLETE');
    const sink = { complete: async () => Promise.reject(new Error('disk full at /secret/path')) };
    const { failure } = await expectRefusedUnchanged(
      journal,
      { state: sink },
      request(entry, { action: 'complete-state' }),
      { code: ERROR_CODES.COMMITTED_INCOMPLETE },
    );
    await expect(failure).rejects.not.toThrow(/secret/);
  });

  it('mark-not-committed needs the fence to prove no mutation and returns to PREPARED', async () => {
    const { journal, entry } = await journalAt('COMMITTING');
    await expectRefusedUnchanged(
      journal,
      { fence: fence('unknown') },
      request(entry, { action: 'mark-not-committed' }),
      { code: ERROR_CODES.ILLEGAL_TRANSITION },
    );
    const result = await applyRecovery(
      deps(journal, { fence: fence('not-committed') }),
      request(entry, { action: 'mark-not-committed' }),
    );
    expect(result.after.state).toBe('PREPARED');
  });

  it('resolve-unknown without fence proof needs an evidence reference, which the audit record carries', async () => {
    const { journal, entry } = await journalAt('COMMIT_UNKNOWN');
    await expect(applyRecovery(deps(journal), request(entry))).rejects.toMatchObject({
      code: ERROR_CODES.ILLEGAL_TRANSITION,
    });
    const result = await applyRecovery(deps(journal), request(entry, { evidenceRef: 'INC-4711' }));
    expect(result.after.state).toBe('PREPARED');
    expect(result.audit.reference).toBe('INC-4711');
    expect((await journal.history(OP)).at(-1)!.evidence.reason).toBe('recovery:operator-evidence');
  });

  it('a stale expected version is a RECOVERY_CONFLICT and changes nothing', async () => {
    const { journal, entry } = await journalAt('COMMIT_UNKNOWN');
    await expectRefusedUnchanged(
      journal,
      { fence: fence('committed') },
      request(entry, { expectedVersion: entry.version - 1 }),
      { code: ERROR_CODES.RECOVERY_CONFLICT, fields: { journalVersion: entry.version } },
    );
  });

  it('two applies racing on one version: exactly one succeeds, the other gets RECOVERY_CONFLICT', async () => {
    const { journal, entry } = await journalAt('COMMIT_UNKNOWN');
    let arrived = 0;
    let release!: () => void;
    const barrier = new Promise<void>((resolve) => (release = resolve));
    const faults: FaultPoints = {
      hit: (point) => {
        if (point !== 'recovery.apply:cas:before') return;
        if (++arrived === 2) release();
        return barrier;
      },
    };
    const outcomes = await Promise.allSettled([
      applyRecovery(deps(journal, { fence: fence('committed'), faults }), request(entry)),
      applyRecovery(
        deps(journal, { fence: fence('committed'), faults }),
        request(entry, { actor: 'platform:bob' }),
      ),
    ]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const rejected = outcomes.filter((o) => o.status === 'rejected');
    expect(rejected).toHaveLength(1);
    expect((rejected[0] as PromiseRejectedResult).reason).toMatchObject({
      code: ERROR_CODES.RECOVERY_CONFLICT,
    });
    expect((await journal.history(OP)).filter((record) => record.kind === 'audit')).toHaveLength(1);
  });

  it('a worker changing the entry between read and write makes apply conflict and write nothing', async () => {
    const { journal, entry } = await journalAt('TARGET_COMMITTED');
    let worker: CommitJournalEntry | null = null;
    const faults: FaultPoints = {
      hit: async (point) => {
        if (point !== 'recovery.apply:cas:before') return;
        worker = await journal.acquireLease({
          operationId: OP,
          expectedVersion: entry.version,
          holder: 'w2',
          ttlMs: 100,
          nowMs: now,
        });
      },
    };
    await expect(
      applyRecovery(deps(journal, { faults }), request(entry, { action: 'complete-state' })),
    ).rejects.toMatchObject({
      code: ERROR_CODES.RECOVERY_CONFLICT,
    });
    expect(await journal.get(OP)).toEqual(worker);
    expect((await journal.history(OP)).some((record) => record.kind === 'audit')).toBe(false);
  });

  it('passes its fault points in order', async () => {
    const { journal, entry } = await journalAt('COMMITTED_INCOMPLETE');
    const points: string[] = [];
    await applyRecovery(
      deps(journal, {
        fence: fence('committed'),
        state: { complete: async () => undefined },
        faults: { hit: (point) => void points.push(point) },
      }),
      request(entry, { action: 'complete-state' }),
    );
    expect(points).toEqual([
      'recovery.apply:read:before',
      'recovery.apply:read:after',
      'recovery.apply:fence.query:before',
      'recovery.apply:fence.query:after',
      'recovery.apply:state.complete:before',
      'recovery.apply:state.complete:after',
      'recovery.apply:cas:before',
      'recovery.apply:cas:after',
    ]);
  });

  it('refuses reasons, references and identities that could carry secrets, before touching the journal', async () => {
    const { journal, entry } = await journalAt('COMMIT_UNKNOWN');
    for (const bad of [
      { reason: 'password=hunter2' },
      { reason: 'see server://u:p4ss@db/x' },
      { reason: 'two\nlines' },
      { evidenceRef: 'https://u:pw@host/x' },
      { evidenceRef: 'has spaces in it' },
      { actor: 'alice; rm -rf' },
    ]) {
      await expectRefusedUnchanged(journal, { fence: fence('committed') }, request(entry, bad), {
        code: ERROR_CODES.INVALID_INPUT,
      });
    }
  });

  it('an unreachable fence is FENCE_UNAVAILABLE and changes nothing', async () => {
    const { journal, entry } = await journalAt('COMMIT_UNKNOWN');
    const broken = { queryFence: async () => Promise.reject(new Error('connect ECONNREFUSED')) };
    await expectRefusedUnchanged(journal, { fence: broken }, request(entry), {
      code: ERROR_CODES.FENCE_UNAVAILABLE,
    });
  });
});
