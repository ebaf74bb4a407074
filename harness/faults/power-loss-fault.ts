import { existsSync, readdirSync, renameSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { lossyFsBinaryPath, lossyFsUnavailable } from '../env/lossy-fs-binary.ts';
import { startLossyFs } from '../env/lossy-fs.ts';
import type { LossyFs, LossyFsStats } from '../env/lossy-fs.ts';
import { POWER_LOSS_DURABLE } from '../evidence/check-names.ts';
import type { CheckRecord } from '../evidence/evidence-types.ts';
import type { CellDraft } from '../plan/cell.ts';
import type { TraceOccurrence } from '../plan/trace.ts';
import { occurrenceKey } from '../plan/trace.ts';
import type { FaultSpecOf } from '../scenario/scenario-schema.ts';
import type { CellOutcome, CellRun, FaultModule, PlanContext } from './fault.ts';
import { NORMAL_LEASE_TTL_MS } from './fault.ts';
import { transitionPoints } from './loss-points.ts';
import { readJournalRows } from './power-loss-journal.ts';

interface PowerLossParams {
  readonly at: TraceOccurrence;
}

/** The variant these cells catch: a journal whose transitions return before they are on disk. */
const SYNC_OFF = 'journal-sync-off';

/**
 * A point the variant is caught at on every run: once the killed attempt has committed a journal
 * write (the operation's entry, a lease, a transition), a journal that never syncs loses it at the
 * cut. Before that there is nothing to lose.
 */
function afterFirstJournalWrite(trace: readonly TraceOccurrence[], at: TraceOccurrence): boolean {
  const first = trace.findIndex(
    (o) =>
      o.point === 'journal.create:after' ||
      o.point === 'lease.acquire:after' ||
      /^cas:.*:after$/.test(o.point),
  );
  return first >= 0 && trace.indexOf(at) >= first;
}

function planPowerLoss(_spec: FaultSpecOf<'power-loss'>, { traces }: PlanContext): CellDraft[] {
  return transitionPoints(traces.clean).map((at) => {
    const sensitive = afterFirstJournalWrite(traces.clean, at);
    return {
      localId: `journal/${occurrenceKey(at)}`,
      fault: { kind: 'power-loss', storage: 'journal', point: at.point, hit: at.hit, attempt: 1 },
      params: { at } satisfies PowerLossParams,
      sensitive,
      ...(sensitive ? { sensitiveTo: [SYNC_OFF] } : {}),
    };
  });
}

function unverified(name: string, detail: string): CellOutcome {
  return {
    attempts: [],
    hit: true,
    settle: false,
    expectation: { end: 'stopped' },
    extraChecks: [{ name, verdict: 'UNVERIFIED', detail }],
  };
}

/** The file a `sqlite://` journal URL names, or null for any other journal. */
function sqliteJournalFile(url: string): string | null {
  return /^sqlite:\/\/(\/.+)$/.exec(url)?.[1] ?? null;
}

/** The journal as the killed attempt left it (through the mount) against what the cut kept. */
function durableCheck(committed: string | null, survived: string | null): CheckRecord {
  if (committed === survived)
    return {
      name: POWER_LOSS_DURABLE,
      verdict: 'PASS',
      detail: `after the cut the journal holds what the killed attempt had committed (${committed ?? 'no entry'})`,
    };
  return {
    name: POWER_LOSS_DURABLE,
    verdict: 'FAIL',
    detail: `the power cut took back committed journal state: before the cut ${committed ?? 'no entry'}, after it ${survived ?? 'no entry'}`,
  };
}

/**
 * Moves what the cut and the retry left of the journal (journal.db and its -wal/-shm) from the
 * backing folder to the cell's journal path, where the runner's checkers read it.
 */
function handBack(backing: string, journalFile: string): void {
  const name = basename(journalFile);
  for (const entry of readdirSync(backing))
    if (entry === name || entry === `${name}-wal` || entry === `${name}-shm`)
      renameSync(join(backing, entry), join(dirname(journalFile), entry));
}

async function runPowerLoss(run: CellRun): Promise<CellOutcome> {
  const { at } = run.cell.params as unknown as PowerLossParams;
  const journalFile = sqliteJournalFile(run.fixture.journalUrl);
  const ops = run.fixture.journalFile;
  if (journalFile === null || ops === undefined)
    return unverified(
      'route-capability',
      "the route's journal is not a SQLite file: no power-loss cell for it",
    );
  const backing = join(run.dir, 'power-durable');
  const started = await startLossyFs({ backing });
  if (!started.available) return unverified('power-loss-filesystem', started.reason);
  const fs: LossyFs = started.fs;
  let outcome: CellOutcome;
  try {
    const onFs = join(fs.mountPoint, basename(journalFile));
    const command = [
      'run',
      '--workload',
      run.fixture.workloadFile,
      '--journal',
      `sqlite://${onFs}`,
      '--json',
    ];
    const first = await run.killAt('first', at, { command });
    if (!first.hit) return { attempts: [first.record], hit: false };
    // The SIGKILL and the cut together: the killed attempt's committed journal, then what survives.
    const committed = readJournalRows(onFs, 'before-cut');
    const atCut: LossyFsStats = await fs.stats();
    await fs.cutPower();
    const survived = readJournalRows(onFs, 'after-cut');
    // The leases are in the journal on the mount, not at the cell's usual journal path.
    if (survived !== null) await run.expireLeases(() => ops.open(onFs));
    const retry = await run.run('retry', { command });
    await fs.syncAll();
    outcome = {
      attempts: [first.record, retry],
      hit: true,
      settle: false,
      expectation: { end: 'complete' },
      extraChecks: [durableCheck(committed, survived)],
      fault: { unsynced_files_at_cut: atCut.unsynced, unsynced_dirs_at_cut: atCut.dirsahead },
    };
  } finally {
    await fs[Symbol.asyncDispose]();
  }
  if (existsSync(backing)) handBack(backing, journalFile);
  return outcome;
}

/**
 * power-loss: the SQLite journal on the power-loss filesystem (harness/env/lossyfs). At every
 * transition point of the clean trace the first attempt is SIGKILLed and the power cut with it;
 * the journal must still hold everything that attempt committed, and the retry (same filesystem)
 * must complete with exactly one mutation in the target (its own audit rows).
 */
export const powerLossFault: FaultModule<'power-loss'> = {
  kind: 'power-loss',
  // A lease the retry passes only because the harness moved the cell's clock past it (the lease
  // is read where the journal is, also on the mount): a cell whose clock did not move fails at the
  // retry (the lease still held) instead of passing because a 150 ms lease ran out in real time.
  leaseTtlMs: () => NORMAL_LEASE_TTL_MS,
  plan: planPowerLoss,
  run: runPowerLoss,
  unavailableIn: () => lossyFsUnavailable(lossyFsBinaryPath()),
};
