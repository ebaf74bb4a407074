import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ERROR_CODES, EXIT_CODES } from '../../src/contracts/errors.ts';
import type { AttemptRecord, CheckRecord } from '../evidence/evidence-types.ts';
import { ownsServerFor } from '../routes/engine-services.ts';
import type { CellDraft } from '../plan/cell.ts';
import type { FaultSpecOf } from '../scenario/scenario-schema.ts';
import type { CellOutcome, CellRun, FaultModule, PlanContext } from './fault.ts';
import { TAKEOVER_LEASE_TTL_MS, unverifiedOutcome } from './fault.ts';
import { cellOperationId } from './loss-observation.ts';
import { LOST_COMMIT_DIVERGED } from '../evidence/check-names.ts';

/** The check a lost-commit cell adds when the operator's reopen took. */
const REOPENED = 'lost-commit-reopened';

/** Where the first worker parks while the standby stops receiving: just before its COMMIT. */
const COMMIT_POINT = 'target.commit:before';

function planLostCommit(_spec: FaultSpecOf<'lost-commit'>, context: PlanContext): CellDraft[] {
  if (!context.traces.clean.some((occurrence) => occurrence.point === COMMIT_POINT)) return [];
  return [
    {
      localId: 'async-standby-promoted',
      fault: { kind: 'lost-commit', point: COMMIT_POINT, hit: 1 },
      params: {},
      sensitive: true,
    },
  ];
}

function check(name: string, ok: boolean, detail: string): CheckRecord {
  return { name, verdict: ok ? 'PASS' : 'FAIL', detail };
}

/** The journal's entry as an operator reads it before acting. */
async function entryOf(run: CellRun): Promise<{ state: string; version: number } | null> {
  const journal = await run.fixture.openJournal();
  try {
    const entry = await journal.get(await cellOperationId(run));
    return entry ? { state: entry.state, version: entry.version } : null;
  } finally {
    await journal.close();
  }
}

async function runLostCommit(run: CellRun): Promise<CellOutcome> {
  const servers = run.fixture.isolateServers ? await run.fixture.isolateServers() : {};
  const target = servers.target;
  if (!target?.prepareFailover)
    return unverifiedOutcome(`route ${run.cell.route} owns no target server with a standby to fail over to`);
  await using failover = await target.prepareFailover();
  const attempts: AttemptRecord[] = [];
  {
    await using worker = run.start('first', { stop: { point: COMMIT_POINT, hit: 1 } });
    if (!(await worker.parked())) return { attempts: [await worker.result()], hit: false };
    await failover.stopReplication();
    worker.resume();
    attempts.push(await worker.result());
  }
  const committed = attempts[0]!.exit_code === 0;
  await failover.failover();
  // Its write is gone now, by the fault's own hand: its claim no longer speaks for the target.
  if (committed) attempts[0] = { ...attempts[0]!, write_lost: true };
  await run.expireLeases();
  const after = await run.run('after-failover');
  attempts.push(after);
  const diverged = after.exit_code === EXIT_CODES[ERROR_CODES.DIVERGED];
  const checks: CheckRecord[] = [
    check(
      LOST_COMMIT_DIVERGED,
      diverged,
      diverged
        ? 'the first run committed and completed; after the failover lost its commit the next run stopped with DIVERGED (29), nothing written'
        : `after the failover lost the commit the next run exited ${after.exit_code} (${after.status ?? after.error_code ?? 'no outcome'}): it must stop with DIVERGED (29), never say already-complete with the rows missing`,
    ),
  ];
  // The operator: inspect (the journal says COMPLETE) and reopen on the fence's proof.
  const entry = await entryOf(run);
  const identityFile = join(run.dir, 'platform-identity');
  await writeFile(identityFile, 'platform:dpone-harness\n');
  if (entry?.state === 'COMPLETE') {
    const reopen = await run.run('operator-reopen', {
      command: [
        ...['recovery', 'target-commit', 'apply', '--operation-id', await cellOperationId(run)],
        ...['--journal', run.fixture.journalUrl, '--route', run.fixture.workloadFile],
        ...['--action', 'reopen', '--expected-version', String(entry.version)],
        ...[
          '--reason',
          'harness operator: the failover lost the commit',
          '--identity-file',
          identityFile,
          '--json',
        ],
      ],
    });
    attempts.push(reopen);
    checks.push(
      check(
        REOPENED,
        reopen.exit_code === 0 || !diverged,
        `recovery apply --action reopen exited ${reopen.exit_code}${reopen.error_code ? ` (${reopen.error_code})` : ''}`,
      ),
    );
  }
  return {
    attempts,
    hit: committed,
    // The runner's settle worker then loads the partition: exactly one mutation must remain.
    expectation: { end: 'complete' },
    extraChecks: checks,
    fault: { first_exit: attempts[0]!.exit_code, after_failover_exit: after.exit_code },
  };
}

/**
 * lost-commit: a commit the target acknowledged and then lost in a failover to an asynchronous
 * standby that never received it. The journal says COMPLETE and the target holds neither the rows
 * nor a committed fence: the next run must stop with DIVERGED (never already-complete), the
 * operator's audited reopen must take, and the settle run must land exactly one mutation.
 */
export const lostCommitFault: FaultModule<'lost-commit'> = {
  kind: 'lost-commit',
  unavailableIn(environment) {
    // A service of the route that offers each cell a server of its own with a standby to fail over to.
    if (ownsServerFor(environment.services, 'lost-commit')) return null;
    return `provider ${environment.provider} owns no server it can fail over (provider local can)`;
  },
  leaseTtlMs: () => TAKEOVER_LEASE_TTL_MS,
  plan: planLostCommit,
  run: runLostCommit,
};
