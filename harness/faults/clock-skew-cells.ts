import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LeaseClock } from '../../src/contracts/lease-clock.ts';
import type { RecoveryActionName } from '../../src/core/recovery-actions.ts';
import { faketimeJumpEnv, faketimeOffsetEnv } from '../env/faketime.ts';
import type { AttemptRecord, CheckRecord } from '../evidence/evidence-types.ts';
import type { TraceOccurrence } from '../plan/trace.ts';
import {
  BOUND_SLACK_MS,
  auditTruthCheck,
  leaseBoundCheck,
  offsetMs,
  promisedWaitMs,
} from './clock-skew-checks.ts';
import type { CellOutcome, CellRun } from './fault.ts';
import { releasedAfter } from './zombie-race.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Exit codes after which a normal retrier tries again (10-15: nothing it could fix itself). */
const RETRY_EXITS = new Set([10, 11, 12, 13, 14, 15]);

async function journalClock(run: CellRun): Promise<LeaseClock> {
  const journal = await run.fixture.openJournal();
  try {
    return journal.leaseClock;
  } finally {
    await journal.close();
  }
}

/**
 * A normal retrier (no skew), as a scheduler would run it: tries at once, and again while the
 * operation is refused as held. The operation was wedged when a try that STARTED after the
 * journal's promise (plus slack) was still refused: how long a try itself takes (a loaded machine,
 * a reconciliation) is not the lease's doing.
 */
async function retryUntilComplete(
  run: CellRun,
  diedAt: number,
  promisedMs: number,
): Promise<{ attempts: AttemptRecord[]; check: CheckRecord; complete: boolean }> {
  const attempts: AttemptRecord[] = [];
  const deadline = diedAt + promisedMs + BOUND_SLACK_MS;
  const clock = await journalClock(run);
  for (let tries = 1; ; tries++) {
    const startedAt = Date.now();
    const attempt = await run.run(`retry-${tries}`);
    attempts.push(attempt);
    if (attempt.exit_code === 0) {
      const check = leaseBoundCheck(startedAt - diedAt, promisedMs, clock, tries);
      return { attempts, check, complete: true };
    }
    if (!RETRY_EXITS.has(attempt.exit_code ?? -1) || startedAt > deadline) {
      return { attempts, check: leaseBoundCheck(null, promisedMs, clock, tries), complete: false };
    }
    const left = deadline - Date.now();
    await sleep(Math.max(250, Math.min(1_000, Math.round(left / 3))));
  }
}

/** A holder whose clock is `offset` off dies at `at`; a normal retrier must finish within the bound. */
export async function holderDies(
  run: CellRun,
  library: string,
  at: TraceOccurrence,
  offset: string,
): Promise<CellOutcome> {
  const killed = await run.killAt('holder', at, { env: faketimeOffsetEnv(library, offset) });
  if (!killed.hit) return { attempts: [killed.record], hit: false };
  const diedAt = Date.now();
  const promised = promisedWaitMs(await journalClock(run), run.cell.workload.leaseTtlMs, offsetMs(offset));
  const retried = await retryUntilComplete(run, diedAt, promised);
  return {
    attempts: [killed.record, ...retried.attempts],
    hit: true,
    expectation: { end: 'complete' },
    extraChecks: [retried.check],
    settle: !retried.complete,
  };
}

/**
 * The holder's clock jumps by `jump` right after it took its lease (the first lease rides on the
 * intent's create); it dies in COMMITTING. Nothing it writes afterwards may move its lease's expiry.
 */
export async function holderJumps(run: CellRun, library: string, jump: string): Promise<CellOutcome> {
  const file = join(run.dir, 'faketime-offset');
  await writeFile(file, '+0\n');
  await using holder = run.start('holder', {
    env: faketimeJumpEnv(library, file),
    stops: [
      { point: 'journal.create:after', hit: 1 },
      { point: 'cas:PREPARED->COMMITTING:after', hit: 1 },
    ],
  });
  if (!(await holder.parked(1))) return { attempts: [await holder.result()], hit: false };
  await writeFile(file, `${jump}\n`);
  holder.resume();
  if (!(await holder.parked(2))) return { attempts: [await holder.result()], hit: false };
  holder.kill();
  const record = await holder.result();
  const diedAt = Date.now();
  // The lease was written before the jump: the journal owes the TTL alone.
  const promised = promisedWaitMs(await journalClock(run), run.cell.workload.leaseTtlMs, 0);
  const retried = await retryUntilComplete(run, diedAt, promised);
  return {
    attempts: [record, ...retried.attempts],
    hit: true,
    expectation: { end: 'complete' },
    extraChecks: [retried.check],
    settle: !retried.complete,
  };
}

/** A challenger whose clock is `offset` off races a live holder parked at `at`. */
export async function challengerRaces(
  run: CellRun,
  library: string,
  at: TraceOccurrence,
  offset: string,
): Promise<CellOutcome> {
  await using holder = run.start('holder', { stop: at });
  if (!(await holder.parked())) return { attempts: [await holder.result()], hit: false };
  await using challenger = run.start('challenger', { env: faketimeOffsetEnv(library, offset) });
  const { attempts, otherFirst: finished } = await releasedAfter(holder, challenger);
  const order: CheckRecord = {
    name: 'clock-interleaving',
    verdict: 'PASS',
    detail: finished
      ? 'the skewed challenger ended while the holder was parked'
      : 'the skewed challenger waited on a lock the parked holder held; the holder was released',
  };
  return {
    attempts,
    hit: true,
    expectation: { end: 'complete' },
    extraChecks: [order],
    settle: 'unless-complete',
  };
}

/**
 * An operator whose clock is `offset` off applies `action` while the holder is parked at `at`,
 * inside its commit; then the holder goes on. What the operator's audit states must hold in the
 * target before any new attempt runs.
 */
export async function operatorApplies(
  run: CellRun,
  library: string,
  at: TraceOccurrence,
  action: RecoveryActionName,
  offset: string,
): Promise<CellOutcome> {
  await using holder = run.start('holder', { stop: at });
  if (!(await holder.parked())) return { attempts: [await holder.result()], hit: false };
  const journal = await run.fixture.openJournal();
  const [id] = await journal.list();
  const entry = await journal.get(id!);
  await journal.close();
  const identityFile = join(run.dir, 'platform-identity');
  await writeFile(identityFile, 'platform:dpone-harness\n');
  const command = [
    ...['recovery', 'target-commit', 'apply', '--operation-id', entry!.operation_id],
    ...['--journal', run.fixture.journalUrl, '--route', run.fixture.workloadFile],
    ...['--action', action, '--expected-version', String(entry!.version)],
    ...['--reason', 'harness clock-skew cell', '--identity-file', identityFile, '--json'],
  ];
  await using operator = run.start('operator', { command, env: faketimeOffsetEnv(library, offset) });
  const { attempts, otherFirst: finished } = await releasedAfter(holder, operator);
  // Before any new attempt: what the attempts that existed when the operator acted have landed.
  const landed = (await run.fixture.inspector.snapshot({ firstDifference: false })).mutations;
  const after = await run.fixture.openJournal();
  const audits = (await after.history(entry!.operation_id)).filter(
    (record) => record.kind === 'audit' && record.version > entry!.version,
  );
  await after.close();
  const order: CheckRecord = {
    name: 'clock-interleaving',
    verdict: 'PASS',
    detail: `${action} by an operator ${offset} off ${finished ? 'ended while the holder was parked' : 'waited on the holder’s open commit; the holder was released'} (exit ${attempts[1]!.exit_code})`,
  };
  return {
    attempts,
    hit: true,
    expectation: { end: 'complete' },
    extraChecks: [auditTruthCheck(audits, landed), order],
    settle: 'unless-complete',
  };
}
