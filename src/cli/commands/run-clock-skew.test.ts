import { afterEach, describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../contracts/errors.ts';
import { FAKETIME_MISSING, faketimeOffsetEnv } from '../../../harness/env/faketime.ts';
import { readFileRow, readFileRows } from '../embedded-files.test-support.ts';
import {
  clockWorker as worker,
  faketime as library,
  faketimeMissing as missing,
  journalPath,
  killedWhileParked,
  stopWorkers,
} from './clock-skew.test-support.ts';
import type { ExampleCopy } from './example-workload.test-support.ts';
import { EXPECTED_ROWS, dpone, exampleCopy, targetCounts } from './example-workload.test-support.ts';

/**
 * Issue 30's "what was seen", each with real processes and the real libfaketime (Debian's
 * `faketime`): a worker whose clock runs ahead, an operator whose clock runs ahead, a holder
 * whose commit landed while a clock-ahead challenger took the journal over, and a workload that
 * changes only its partition. The example runs the embedded route on its file journal (a server
 * journal's clock case is in that engine's folder). Without libfaketime the clock cases are
 * UNVERIFIED (in CI, where `.ci/run` installs it, a missing library fails).
 */
const IDENTITY = { DPONE_PLATFORM_IDENTITY: 'platform:oncall@example.com' };
afterEach(stopWorkers);

function journalRow(example: ExampleCopy): { version: number; state: string; lease_holder: string | null } {
  return readFileRow(
    journalPath(example),
    'SELECT version, state, lease_holder FROM dpone_commit_journal',
  ) as never;
}

function reasons(example: ExampleCopy): string[] {
  return readFileRows(
    journalPath(example),
    'SELECT evidence FROM dpone_commit_journal_history ORDER BY version',
  ).map((row) => (JSON.parse(String(row.evidence)) as { reason: string }).reason);
}

function fenceRow(example: ExampleCopy): { holder: string; committed_epoch: number; status: string } {
  return readFileRow(
    example.targetPath(),
    'SELECT holder, committed_epoch, status FROM _dpone_fence',
  ) as never;
}

async function operationId(example: ExampleCopy): Promise<string> {
  const ids = await dpone(['identity', '--workload', example.workload, '--json'], { cwd: example.dir });
  return (JSON.parse(ids.stdout) as { operation_id: string }).operation_id;
}

const run = (example: ExampleCopy, env: Record<string, string> = {}) =>
  dpone(['run', '--workload', example.workload, '--json'], { cwd: example.dir, env });

describe.skipIf(missing)('clock skew, with the real libfaketime (issue 30, what was seen)', () => {
  it('case 1: a worker a year ahead, SIGKILLed in COMMITTING, does not wedge the embedded file journal: the next normal run completes at once', async () => {
    const example = exampleCopy();
    await killedWhileParked(example, 'pod-ahead', {
      offset: '+365d',
      stop: 'cas:PREPARED->COMMITTING:after',
    });
    // The first ordinary retry, no waiting: before issue 30 it exited 13 for a year.
    const retry = await run(example);
    expect(retry.exitCode, retry.stderr).toBe(0);
    expect(JSON.parse(retry.stdout)).toMatchObject({ status: 'committed', mutated: true });
    expect(retry.stderr).toMatch(/warning: the lease of holder pod-ahead \(epoch 1\) expires at 2027-/);
    expect(reasons(example)).toContain('lease:takeover-clock-fault');
    expect(targetCounts(example.targetPath())).toEqual({ rows: EXPECTED_ROWS, distinctIds: EXPECTED_ROWS });
  });

  it('case 1, two hours ahead: within the largest TTL the journal cannot tell; plan recommends expire-lease and the next run completes', async () => {
    const example = exampleCopy();
    await killedWhileParked(example, 'pod-2h', { offset: '+2h', stop: 'cas:PREPARED->COMMITTING:after' });
    const blocked = await run(example);
    expect(blocked.exitCode).toBe(EXIT_CODES.DPONE_TARGET_COMMIT_CAS_CONFLICT);
    const id = await operationId(example);
    const route = ['--operation-id', id, '--route', example.workload];
    const plan = await dpone(['recovery', 'target-commit', 'plan', ...route, '--json'], { cwd: example.dir });
    const planned = JSON.parse(plan.stdout) as { recommended: string; assessment: { implication: string } };
    expect(planned.recommended).toBe('expire-lease');
    expect(planned.assessment.implication).toContain('pod-2h');
    const { version } = journalRow(example);
    const applied = await dpone(
      ['recovery', 'target-commit', 'apply', ...route, '--action', 'expire-lease'].concat([
        '--expected-version',
        String(version),
        '--reason',
        'pod-2h is gone; its clock ran two hours ahead',
        '--json',
      ]),
      { cwd: example.dir, env: IDENTITY },
    );
    expect(applied.exitCode, applied.stderr).toBe(0);
    expect(journalRow(example)).toMatchObject({ state: 'COMMITTING', lease_holder: null });
    const retry = await run(example);
    expect(retry.exitCode, retry.stderr).toBe(0);
    expect(targetCounts(example.targetPath())).toEqual({ rows: EXPECTED_ROWS, distinctIds: EXPECTED_ROWS });
  });

  it('case 2: an operator an hour ahead cannot mark-not-committed while the holder is inside its commit; the holder’s commit is its own', async () => {
    const example = exampleCopy();
    const id = await operationId(example);
    const holder = worker(example, 'holder-1', { stop: 'target.commit:before' });
    expect(await holder.parked()).not.toBeNull();
    const { version } = journalRow(example);
    const apply = await dpone(
      ['recovery', 'target-commit', 'apply', '--operation-id', id, '--route', example.workload].concat([
        '--action',
        'mark-not-committed',
        '--expected-version',
        String(version),
        '--reason',
        'looks stuck',
        '--json',
      ]),
      { cwd: example.dir, env: { ...IDENTITY, ...faketimeOffsetEnv(library!, '+1h') } },
    );
    // Fence first: raising the epoch waits on the holder's open transaction, so nothing is applied.
    expect(apply.exitCode).toBe(EXIT_CODES.DPONE_TARGET_COMMIT_FENCE_UNAVAILABLE);
    expect(reasons(example)).not.toContain('recovery:fence:not-committed');
    expect(journalRow(example)).toMatchObject({ state: 'COMMITTING', lease_holder: null });
    holder.resume();
    const landed = await holder.result();
    expect([landed.exit_code, landed.status, landed.mutated]).toEqual([0, 'committed', true]);
    expect(journalRow(example).state).toBe('COMPLETE');
    expect(targetCounts(example.targetPath())).toEqual({ rows: EXPECTED_ROWS, distinctIds: EXPECTED_ROWS });
  });

  it('case 3: a holder whose commit landed after a clock-ahead challenger took the journal over reports its own commit (15), never 13', async () => {
    const example = exampleCopy();
    const holder = worker(example, 'holder-1', { stop: 'target.commit:before' });
    expect(await holder.parked()).not.toBeNull();
    // An hour ahead, the challenger finds the holder's lease expired and takes it (epoch 2).
    const challenger = worker(example, 'challenger', { offset: '+1h', stop: 'fence.prepare:before' });
    expect(await challenger.parked()).not.toBeNull();
    expect(journalRow(example).lease_holder).toBe('challenger');
    holder.resume();
    const landed = await holder.result();
    expect([landed.exit_code, landed.error_code]).toEqual([
      EXIT_CODES.DPONE_TARGET_COMMITTED_UNRECORDED,
      'DPONE_TARGET_COMMITTED_UNRECORDED',
    ]);
    challenger.resume();
    const recorded = await challenger.result();
    expect([recorded.exit_code, recorded.mutated]).toEqual([0, false]);
    // The fence row names the holder whose epoch committed, whatever epoch it holds now.
    expect(fenceRow(example)).toEqual({ holder: 'holder-1', committed_epoch: 1, status: 'committed' });
    expect(targetCounts(example.targetPath())).toEqual({ rows: EXPECTED_ROWS, distinctIds: EXPECTED_ROWS });
  });
});

describe('case 4: a workload that changes only its partition', () => {
  it('is an intent conflict naming data.partition.value, never already-complete', async () => {
    const example = exampleCopy();
    expect((await run(example)).exitCode).toBe(0);
    const nextDay = example.variant('next-day.yaml', (text) =>
      text.replace("value: '2026-07-18'", "value: '2026-07-19'"),
    );
    const refused = await dpone(['run', '--workload', nextDay, '--json'], { cwd: example.dir });
    expect(refused.exitCode).toBe(EXIT_CODES.DPONE_TARGET_COMMIT_INTENT_CONFLICT);
    expect(JSON.parse(refused.stderr).error).toMatchObject({
      field: 'data.partition.value',
      message: expect.stringContaining('data.partition.value differs'),
    });
    expect(targetCounts(example.targetPath())).toEqual({ rows: EXPECTED_ROWS, distinctIds: EXPECTED_ROWS });
  });
});

describe('libfaketime on this machine', () => {
  it.runIf(missing)('is missing: the clock cases are UNVERIFIED (a failure where CI provisions it)', () => {
    if (process.env.CI === 'true') throw new Error(FAKETIME_MISSING);
    console.warn(`UNVERIFIED clock skew: ${FAKETIME_MISSING}`);
  });
});
