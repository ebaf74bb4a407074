import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ERROR_CODES, EXIT_CODES } from '../../src/contracts/errors.ts';
import type { CommitState } from '../../src/contracts/states.ts';
import { RECOVERY_APPLY_POINTS } from '../../src/core/recovery-apply.ts';
import type { RecoveryActionName } from '../../src/core/recovery-actions.ts';
import type { AttemptRecord, CheckRecord } from '../evidence/evidence-types.ts';
import type { CellDraft } from '../plan/cell.ts';
import type { TraceOccurrence } from '../plan/trace.ts';
import type { FaultSpecOf } from '../scenario/scenario-schema.ts';
import type { CellOutcome, CellRun, FaultModule } from './fault.ts';
import { TAKEOVER_LEASE_TTL_MS } from './fault.ts';

/**
 * recovery: operator recovery under faults. Each cell first drives the operation to a state only
 * recovery (or completion) moves on, then:
 * - kill/<from>/<point>: SIGKILL `recovery … apply` at each of its fault points; the journal must be
 *   either untouched or moved exactly once with one audit record, and a clean apply (when still
 *   needed) plus the settle run finish with exactly one mutation;
 * - race/<from>: two applies on one version, released together: exactly one wins, the other is
 *   DPONE_TARGET_COMMIT_RECOVERY_CONFLICT;
 * - stale/<from>: the entry changed after the operator read it (a `dpone run`, or another operator):
 *   the apply conflicts and changes nothing;
 * - worker-during-apply/target-committed: a worker completes the operation while the apply is parked
 *   between its read and its write: the apply conflicts and writes no audit record.
 */

/** Start states: TARGET_COMMITTED (worker killed after the commit was recorded) or COMMIT_UNKNOWN. */
export const RECOVERY_FROM = ['target-committed', 'commit-unknown'] as const;
type From = (typeof RECOVERY_FROM)[number];

const START: Record<From, { state: CommitState; action: RecoveryActionName; kill: TraceOccurrence }> = {
  'target-committed': {
    state: 'TARGET_COMMITTED',
    action: 'complete-state',
    kill: { point: 'cas:COMMITTING->TARGET_COMMITTED:after', hit: 1 },
  },
  // The target committed and the worker died before it could ask the fence; the harness then
  // records the lost fence answer (COMMITTING -> COMMIT_UNKNOWN) exactly as the executor does when
  // a fence query answers unknown, which a certified embedded file target never does by itself.
  'commit-unknown': {
    state: 'COMMIT_UNKNOWN',
    action: 'resolve-unknown',
    kill: { point: 'target.mutate:after', hit: 1 },
  },
};

const CONFLICT_EXIT = EXIT_CODES[ERROR_CODES.RECOVERY_CONFLICT];

interface RecoveryParams {
  readonly from: From;
  readonly mode: 'kill' | 'race' | 'stale' | 'worker-during-apply';
  readonly point?: string;
}

/** The actions that claim the fence's proof fence first: they pass the lease and fence.raise points. */
const FENCES_FIRST: Readonly<Record<From, boolean>> = { 'target-committed': false, 'commit-unknown': true };

function applyPoints(from: From): string[] {
  return RECOVERY_APPLY_POINTS.filter(
    (point) =>
      (from === 'target-committed' || !point.includes('state.complete')) &&
      (FENCES_FIRST[from] || !/recovery\.apply:(lease|fence\.raise):/.test(point)),
  );
}

/** Where racing applies wait, after reading the version: before the first write they make. */
function racePoint(from: From): string {
  return FENCES_FIRST[from] ? 'recovery.apply:lease:before' : 'recovery.apply:cas:before';
}

function planRecoveryCells(spec: FaultSpecOf<'recovery'>): CellDraft[] {
  const drafts: CellDraft[] = [];
  const draft = (localId: string, params: RecoveryParams): CellDraft => ({
    localId,
    fault: {
      kind: 'recovery',
      phase: params.mode,
      from: params.from,
      ...(params.point ? { point: params.point } : {}),
    },
    params: { ...params },
    sensitive: false,
  });
  for (const from of spec.from ?? RECOVERY_FROM) {
    for (const point of applyPoints(from))
      drafts.push(draft(`kill/${from}/${point}#1`, { from, mode: 'kill', point }));
    drafts.push(draft(`race/${from}`, { from, mode: 'race' }));
    drafts.push(draft(`stale/${from}`, { from, mode: 'stale' }));
    if (from === 'target-committed')
      drafts.push(draft(`worker-during-apply/${from}`, { from, mode: 'worker-during-apply' }));
  }
  return drafts;
}

interface Operation {
  readonly id: string;
  readonly state: CommitState | null;
  readonly version: number;
  readonly audits: number;
  readonly leaseHolder: string | null;
}

async function readOperation(run: CellRun): Promise<Operation | null> {
  const journal = await run.fixture.openJournal();
  try {
    const [id] = await journal.list();
    const entry = id === undefined ? null : await journal.get(id);
    if (!entry) return null;
    const audits = (await journal.history(entry.operation_id)).filter(
      (record) => record.kind === 'audit',
    ).length;
    return {
      id: entry.operation_id,
      state: entry.state,
      version: entry.version,
      audits,
      leaseHolder: entry.lease?.holder ?? null,
    };
  } finally {
    await journal.close();
  }
}

/**
 * Records a lost fence answer for an operation a killed worker left in COMMITTING (after its
 * lease expired): COMMITTING -> COMMIT_UNKNOWN, exactly as the executor records a fence query
 * that answers unknown, which a certified target never does by itself. Throws when the entry is
 * not in COMMITTING (the caller's fault did not leave it there).
 */
export async function recordLostFenceAnswer(run: CellRun): Promise<void> {
  const journal = await run.fixture.openJournal();
  try {
    const [id] = await journal.list();
    const entry = await journal.get(id!);
    await journal.compareAndSet({
      operationId: entry!.operation_id,
      expectedVersion: entry!.version,
      expectedStates: new Set(['COMMITTING']),
      nextState: 'COMMIT_UNKNOWN',
      evidence: { reason: 'fence:unknown', fence_status: 'unknown', holder: 'harness:lost-fence-answer' },
      nowMs: run.nowMs(),
      releaseLease: true,
    });
  } finally {
    await journal.close();
  }
}

/** Drives the operation to `from`'s state; returns the first attempt and the operation, or null. */
async function driveTo(
  run: CellRun,
  from: From,
): Promise<{ first: AttemptRecord; operation: Operation | null }> {
  const { record, hit } = await run.killAt('first', START[from].kill);
  await run.expireLeases();
  if (hit && from === 'commit-unknown') await recordLostFenceAnswer(run);
  const operation = await readOperation(run);
  return { first: record, operation: operation?.state === START[from].state ? operation : null };
}

async function applyCommand(
  run: CellRun,
  from: From,
  operation: Operation,
  version: number,
): Promise<string[]> {
  const identityFile = join(run.dir, 'platform-identity');
  await writeFile(identityFile, 'platform:dpone-harness\n');
  return [
    ...['recovery', 'target-commit', 'apply', '--operation-id', operation.id],
    ...['--journal', run.fixture.journalUrl, '--route', run.fixture.workloadFile],
    ...['--action', START[from].action, '--expected-version', String(version)],
    ...['--reason', 'harness recovery cell', '--identity-file', identityFile, '--json'],
  ];
}

function check(name: string, ok: boolean, detail: string): CheckRecord {
  return { name, verdict: ok ? 'PASS' : 'FAIL', detail };
}

function conflicted(attempt: AttemptRecord): boolean {
  return attempt.exit_code === CONFLICT_EXIT && attempt.error_code === ERROR_CODES.RECOVERY_CONFLICT;
}

async function runRecovery(run: CellRun): Promise<CellOutcome> {
  const params = run.cell.params as unknown as RecoveryParams;
  const { first, operation } = await driveTo(run, params.from);
  if (operation === null) return { attempts: [first], hit: false, expectation: { end: 'complete' } };
  const command = (version: number) => applyCommand(run, params.from, operation, version);
  const attempts: AttemptRecord[] = [first];
  const checks: CheckRecord[] = [];
  let hit = true;

  if (params.mode === 'kill') {
    const killed = await run.killAt(
      'apply-killed',
      { point: params.point!, hit: 1 },
      { command: await command(operation.version) },
    );
    attempts.push(killed.record);
    hit = killed.hit;
    const after = await readOperation(run);
    const untouched =
      after?.state === operation.state &&
      after.version === operation.version &&
      after.audits === operation.audits;
    // Killed after it took its lease to fence first, before it applied: nothing applied, and the
    // lease (the apply's, the workload's TTL) expires by itself.
    const leasedOnly =
      after?.state === operation.state &&
      after.version === operation.version + 1 &&
      after.audits === operation.audits &&
      after.leaseHolder?.startsWith('recovery/') === true;
    // Applied: one audited change (after its own lease when it fenced first).
    const steps = FENCES_FIRST[params.from] ? 2 : 1;
    const movedOnce = after?.version === operation.version + steps && after.audits === operation.audits + 1;
    const how = untouched
      ? 'untouched'
      : leasedOnly
        ? 'only the apply’s own lease taken (nothing applied; it expires by itself)'
        : movedOnce
          ? 'moved once, audited'
          : 'neither untouched nor moved once';
    checks.push(
      check(
        'recovery-atomic',
        untouched || leasedOnly || movedOnce,
        `after the kill the entry is ${after?.state} v${after?.version} (was ${operation.state} v${operation.version}): ${how}`,
      ),
    );
    if (untouched || leasedOnly) {
      if (leasedOnly) await run.expireLeases();
      const clean = await run.run('apply-clean', { command: await command(after!.version) });
      attempts.push(clean);
      checks.push(
        check(
          'recovery-clean-apply',
          clean.exit_code === 0,
          `the clean apply after the kill exited ${clean.exit_code}`,
        ),
      );
    }
  } else if (params.mode === 'race') {
    const racers = [1, 2].map(async (index) =>
      run.start(`apply-race-${index}`, {
        command: await command(operation.version),
        stop: { point: racePoint(params.from), hit: 1 },
      }),
    );
    const workers = await Promise.all(racers);
    try {
      const parked = await Promise.all(workers.map((worker) => worker.parked()));
      hit = parked.every((event) => event !== null);
      for (const worker of workers) worker.resume();
      const results = await Promise.all(workers.map((worker) => worker.result()));
      attempts.push(...results);
      const winners = results.filter((attempt) => attempt.exit_code === 0).length;
      const losers = results.filter(conflicted).length;
      const after = await readOperation(run);
      checks.push(
        check(
          'recovery-race',
          winners === 1 && losers === 1 && after?.audits === operation.audits + 1,
          `${winners} apply won, ${losers} got RECOVERY_CONFLICT, ${(after?.audits ?? 0) - operation.audits} audit record(s) written`,
        ),
      );
    } finally {
      await Promise.all(workers.map((worker) => worker[Symbol.asyncDispose]()));
    }
  } else if (params.mode === 'stale') {
    // Someone else moves the entry after the operator read version N: a worker or another operator.
    const mover =
      params.from === 'target-committed'
        ? await run.run('worker')
        : await run.run('apply-other', { command: await command(operation.version) });
    attempts.push(mover);
    const before = await readOperation(run);
    const stale = await run.run('apply-stale', { command: await command(operation.version) });
    attempts.push(stale);
    const after = await readOperation(run);
    checks.push(
      check(
        'recovery-stale-version',
        conflicted(stale) && before?.version !== operation.version && after?.version === before?.version,
        `the entry moved v${operation.version} -> v${before?.version}; the stale apply exited ${stale.exit_code} (${stale.error_code ?? 'no code'}) and left v${after?.version}`,
      ),
    );
  } else {
    const apply = run.start('apply-parked', {
      command: await command(operation.version),
      stop: { point: 'recovery.apply:cas:before', hit: 1 },
    });
    try {
      hit = (await apply.parked()) !== null;
      attempts.push(await run.run('worker'));
      apply.resume();
      const result = await apply.result();
      attempts.push(result);
      const after = await readOperation(run);
      checks.push(
        check(
          'recovery-concurrent-worker',
          conflicted(result) && after?.audits === operation.audits,
          `a worker moved the entry to ${after?.state} while the apply was parked; the apply exited ${result.exit_code} (${result.error_code ?? 'no code'}), ${(after?.audits ?? 0) - operation.audits} audit record(s) written`,
        ),
      );
    } finally {
      await apply[Symbol.asyncDispose]();
    }
  }
  return { attempts, hit, expectation: { end: 'complete' }, extraChecks: checks };
}

export const recoveryFault: FaultModule<'recovery'> = {
  kind: 'recovery',
  leaseTtlMs: () => TAKEOVER_LEASE_TTL_MS,
  plan: (spec) => planRecoveryCells(spec),
  run: runRecovery,
};
