import type { CellDraft } from '../plan/cell.ts';
import type { RecordedKill, TraceOccurrence } from '../plan/trace.ts';
import { occurrenceKey } from '../plan/trace.ts';
import type { JournalLossMode } from '../routes/route.ts';
import { JOURNAL_LOSS_MODES } from '../routes/route.ts';
import type { FaultSpecOf } from '../scenario/scenario-schema.ts';
import type { CellOutcome, CellRun, FaultModule, PlanContext } from './fault.ts';
import { TAKEOVER_LEASE_TTL_MS } from './fault.ts';
import { backupPointFor, groupByDurableState, transitionPoints } from './loss-points.ts';
import { journalLost, journalPosition, journalRolledBack, lossApplied } from './loss-applied.ts';
import { observeLoss } from './loss-observation.ts';
import { zombieRace } from './zombie-race.ts';
import { lossCellDraft, lostBeforeRetry, missingOperation, selectedModes } from './loss-plan.ts';

/**
 * The sensitivity subset, one point per mode. A zombie (fork, wal-loss) parked in COMMITTING
 * before its write, while a fresh journal reissues its lease epoch to another worker, is where a
 * fence whose commit guard checks the epoch only lets both write. A journal deleted right after
 * the target committed is where a target without a real fence writes twice.
 */
const SENSITIVE: Readonly<Partial<Record<JournalLossMode, string>>> = {
  delete: 'target.commit:after',
  fork: 'cas:PREPARED->COMMITTING:after',
  'wal-loss': 'cas:PREPARED->COMMITTING:after',
};

/** Modes whose first worker is parked and released again (not killed): no two points are alike. */
const ZOMBIE_MODES: ReadonlySet<JournalLossMode> = new Set(['fork', 'wal-loss']);

interface JournalLossParams {
  readonly mode: JournalLossMode;
  readonly at: TraceOccurrence;
  /** Rollback: where the backup the journal is restored to was taken (earlier in the same attempt). */
  readonly backup?: TraceOccurrence;
  /** The recorded state right after a first-attempt kill at `at`, when the route can copy it. */
  readonly killed?: RecordedKill;
}

/** What each mode needs of the route's journal operations. */
const NEEDS: Readonly<Record<JournalLossMode, readonly string[]>> = {
  wipe: ['wipe'],
  delete: ['delete'],
  rollback: ['backup', 'restore'],
  fork: ['forkUrl'],
  'wal-loss': ['dropWal'],
};

function planJournalLoss(spec: FaultSpecOf<'journal-loss'>, context: PlanContext): CellDraft[] {
  const { traces } = context;
  const points = transitionPoints(traces.clean);
  const drafts: CellDraft[] = [];
  for (const mode of selectedModes(spec.modes, context.lossModes?.journal, JOURNAL_LOSS_MODES)) {
    const groups = ZOMBIE_MODES.has(mode)
      ? points.map((at) => [at])
      : groupByDurableState(points, traces, spec.distinct_states ?? true, (at) =>
          mode === 'rollback' ? occurrenceKey(backupPointFor(traces.clean, at) ?? at) : '',
        );
    for (const [at, ...equivalent] of groups) {
      const backup = mode === 'rollback' ? backupPointFor(traces.clean, at!) : null;
      if (mode === 'rollback' && backup === null) continue;
      drafts.push(
        lossCellDraft('journal-loss', mode, at!, equivalent, traces, {
          ...(backup ? { backup, extraFault: { backup_point: occurrenceKey(backup) } } : {}),
          sensitive: at!.point === SENSITIVE[mode],
        }),
      );
    }
  }
  return drafts;
}

/** First attempt to `at` and SIGKILL there (or the recorded kill's state), then the loss. */
async function killThenLose(run: CellRun, params: JournalLossParams): Promise<CellOutcome> {
  const ops = run.fixture.journalOps!;
  const first = await lostBeforeRetry(run, params.at, params.killed);
  if (!first.hit) return { attempts: [first.record], hit: false };
  const before = await journalPosition(run);
  await (params.mode === 'wipe' ? ops.wipe!() : ops.delete!());
  return {
    attempts: [first.record],
    hit: true,
    expectation: { end: 'stopped' },
    extraChecks: [journalLost(before, await journalPosition(run), params.mode)],
    observe: () => observeLoss(run),
  };
}

/** Park at the backup point, copy the journal, release; SIGKILL at `at`; restore the older copy. */
async function rollback(run: CellRun, params: JournalLossParams): Promise<CellOutcome> {
  const ops = run.fixture.journalOps!;
  await using first = run.start('first', { stop: params.backup!, stops: [params.at] });
  if (!(await first.parked(1))) return { attempts: [await first.result()], hit: false };
  const backup = await ops.backup!();
  first.resume();
  const parked = await first.parked(2);
  if (parked) first.kill();
  const record = await first.result();
  if (!parked) return { attempts: [record], hit: false };
  const before = await journalPosition(run);
  await ops.restore!(backup);
  return {
    attempts: [record],
    hit: true,
    expectation: { end: 'stopped' },
    extraChecks: [journalRolledBack(before, await journalPosition(run))],
    observe: () => observeLoss(run),
  };
}

/** The WAL goes under the parked first worker; the released first still writes through its own. */
async function walLoss(run: CellRun, params: JournalLossParams): Promise<CellOutcome> {
  const outcome = await zombieRace(run, params.at, async () => {
    const bytes = await run.fixture.journalOps!.dropWal!();
    return {
      checks: [lossApplied(bytes > 0, `deleted a WAL of ${bytes} bytes under the parked worker`)],
      second: {},
    };
  });
  return { ...outcome, observe: () => observeLoss(run) };
}

/**
 * Two deployments, one target: while the first is parked, a second deployment with its own empty
 * journal runs the same operation; the first is released; then the runner's settle worker is the
 * first deployment resuming on its own journal. A fresh journal reissues lease epochs: only the
 * fence can keep the zombie from writing again.
 */
async function fork(run: CellRun, params: JournalLossParams): Promise<CellOutcome> {
  const forkUrl = await run.fixture.journalOps!.forkUrl!();
  const outcome = await zombieRace(run, params.at, async () => ({
    checks: [],
    second: { journal: { url: forkUrl, ref: 'fork' } },
  }));
  return { ...outcome, observe: () => observeLoss(run, forkUrl) };
}

async function runJournalLoss(run: CellRun): Promise<CellOutcome> {
  const params = run.cell.params as unknown as JournalLossParams;
  const missing = missingOperation(run, 'journalOps', NEEDS[params.mode], params.mode);
  if (missing) return missing;
  if (params.mode === 'rollback') return rollback(run, params);
  if (params.mode === 'wal-loss') return walLoss(run, params);
  if (params.mode === 'fork') return fork(run, params);
  return killThenLose(run, params);
}

/**
 * journal-loss: at every transition point of the clean trace the journal is lost — wiped,
 * deleted with the state folder, rolled back to its own backup from one transition earlier,
 * forked (a second deployment runs on its own, empty journal while the first is parked), or
 * stripped of its WAL under a parked worker — and retries run (the runner's settle worker, plus the
 * fork's or the WAL's second
 * worker). The target's fence is then the last line of defence: the target may show only the
 * mutation the fence proves, no attempt may claim a write it does not show, and `inspect` must
 * explain the end. Cells end `stopped`: a refused retry is a correct end.
 */
export const journalLossFault: FaultModule<'journal-loss'> = {
  kind: 'journal-loss',
  leaseTtlMs: () => TAKEOVER_LEASE_TTL_MS,
  plan: planJournalLoss,
  run: runJournalLoss,
};
