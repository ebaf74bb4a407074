import {
  existsSync,
  lstatSync,
  readFileSync,
  readdirSync,
  renameSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { lossyFsBinaryPath, lossyFsUnavailable } from '../env/lossy-fs-binary.ts';
import { startLossyFs } from '../env/lossy-fs.ts';
import type { LossyFs, LossyFsStats } from '../env/lossy-fs.ts';
import { UNSAFE_VARIANTS } from '../../src/cli/unsafe-catalogue.ts';
import { POWER_LOSS_ACKNOWLEDGED, POWER_LOSS_DURABLE, POWER_LOSS_RECOVERY } from '../evidence/check-names.ts';
import type { CellFixture } from '../routes/route.ts';
import { embeddedHost } from '../routes/route-registry.ts';
import type { AttemptRecord, CheckRecord } from '../evidence/evidence-types.ts';
import type { CellDraft } from '../plan/cell.ts';
import { gotServers, serversOnStorage } from './server-storage.ts';
import type { TraceOccurrence } from '../plan/trace.ts';
import { occurrenceKey } from '../plan/trace.ts';
import type { FaultSpecOf } from '../scenario/scenario-schema.ts';
import { POWER_LOSS_STORAGES } from '../scenario/scenario-schema.ts';
import type { CellOutcome, CellRun, FaultModule, PlanContext } from './fault.ts';
import { NORMAL_LEASE_TTL_MS, completedOutcome, unverifiedOutcome } from './fault.ts';
import { atomicVisibility, targetImages, targetNow } from './atomic-visibility.ts';
import { transitionPoints } from './loss-points.ts';
import { moveFile } from './storage-files.ts';
import { workloadText } from '../routes/workload-text.ts';
import { statementBoundaries } from './statement-fault.ts';

type Storage = (typeof POWER_LOSS_STORAGES)[number];

interface PowerLossParams {
  readonly at: TraceOccurrence;
  /** Absent in cells planned before the target's cells existed: the journal. */
  readonly storage?: Storage;
}

/** The variants these cells catch: a journal whose transitions return before they are on disk (OFF, NORMAL). */
const UNSYNCED_JOURNAL: readonly string[] = Object.entries(UNSAFE_VARIANTS)
  .filter(([, variant]) => variant.runtime?.journalSynchronous !== undefined)
  .map(([name]) => name);
/** The variant whose run creates its state folder without syncing it into its parent. */
const UNSYNCED_FOLDER: readonly string[] = Object.entries(UNSAFE_VARIANTS)
  .filter(([, variant]) => variant.runtime?.unsyncedFolders === true)
  .map(([name]) => name);
/** The variants the target's cells catch: a target whose COMMIT returns before it is on disk (OFF, NORMAL). */
const UNSYNCED_TARGET: readonly string[] = Object.entries(UNSAFE_VARIANTS)
  .filter(([, variant]) => variant.flaws.synchronous !== undefined)
  .map(([name]) => name);
/** The variants the server's cells catch: the cell's server started so that it never syncs. */
const SERVER_SYNC_OFF: readonly string[] = Object.entries(UNSAFE_VARIANTS)
  .filter(([, variant]) => variant.server?.neverSyncs === true)
  .map(([name]) => name);

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

/**
 * A point the target variant is caught at on every run: once the killed attempt's mutation has
 * committed (`target.commit:after` and every point after it), a target that never syncs loses it at
 * the cut.
 */
function afterTargetCommit(trace: readonly TraceOccurrence[], at: TraceOccurrence): boolean {
  const committed = trace.findIndex((o) => o.point === 'target.commit:after');
  return committed >= 0 && trace.indexOf(at) >= committed;
}

function journalCells(trace: readonly TraceOccurrence[]): CellDraft[] {
  return transitionPoints(trace).map((at) => {
    const sensitive = afterFirstJournalWrite(trace, at);
    return {
      localId: `journal/${occurrenceKey(at)}`,
      fault: { kind: 'power-loss', storage: 'journal', point: at.point, hit: at.hit, attempt: 1 },
      params: { at } satisfies PowerLossParams,
      sensitive,
      ...(sensitive ? { sensitiveTo: [...UNSYNCED_JOURNAL, ...UNSYNCED_FOLDER] } : {}),
    };
  });
}

/**
 * The target's cells: every transition point, then every statement boundary of the mutation step
 * (inside the row write) the target connector passes in its reference run.
 */
function targetCells(trace: readonly TraceOccurrence[], statements: readonly TraceOccurrence[]): CellDraft[] {
  const draft = (at: TraceOccurrence, sensitive: boolean): CellDraft => ({
    localId: `target/${occurrenceKey(at)}`,
    fault: { kind: 'power-loss', storage: 'target', point: at.point, hit: at.hit, attempt: 1 },
    params: { at, storage: 'target' } satisfies PowerLossParams,
    sensitive,
    ...(sensitive ? { sensitiveTo: UNSYNCED_TARGET } : {}),
  });
  return [
    ...transitionPoints(trace).map((at) => draft(at, afterTargetCommit(trace, at))),
    ...statementBoundaries(statements, ['mutate']).map(({ at }) => draft(at, false)),
  ];
}

/**
 * A server's cells: right after every journal write (the intent's creation, every compare-and-set)
 * and right after the target's commit: the states a server's storage can be cut in. The `:before`
 * points are left out (each holds what the `:after` point before it held: a server cell costs a
 * cluster on the filesystem and a crash recovery, seconds, not an embedded file's milliseconds). Each
 * is sensitive to the server that never syncs once the killed attempt has committed anything.
 */
function serverCells(trace: readonly TraceOccurrence[]): CellDraft[] {
  return transitionPoints(trace)
    .filter((at) => at.point.endsWith(':after'))
    .map((at) => {
      const sensitive = afterFirstJournalWrite(trace, at);
      return {
        localId: `server/${occurrenceKey(at)}`,
        fault: { kind: 'power-loss', storage: 'server', point: at.point, hit: at.hit, attempt: 1 },
        params: { at, storage: 'server' } satisfies PowerLossParams,
        sensitive,
        ...(sensitive ? { sensitiveTo: SERVER_SYNC_OFF } : {}),
      };
    });
}

function planPowerLoss(spec: FaultSpecOf<'power-loss'>, { traces }: PlanContext): CellDraft[] {
  const storages = spec.storages ?? ['journal'];
  return POWER_LOSS_STORAGES.filter((storage) => storages.includes(storage)).flatMap((storage) =>
    storage === 'journal'
      ? journalCells(traces.clean)
      : storage === 'target'
        ? targetCells(traces.clean, traces.statements ?? [])
        : serverCells(traces.clean),
  );
}

/** The file as the killed attempt left it (through the mount) against what the cut kept. */
function durableCheck(storage: string, committed: string | null, survived: string | null): CheckRecord {
  if (committed === survived)
    return {
      name: POWER_LOSS_DURABLE,
      verdict: 'PASS',
      detail: `after the cut the ${storage} holds what the killed attempt had committed (${committed ?? 'no entry'})`,
    };
  return {
    name: POWER_LOSS_DURABLE,
    verdict: 'FAIL',
    detail: `the power cut took back committed ${storage} state: before the cut ${committed ?? 'nothing'}, after it ${survived ?? 'nothing'}`,
  };
}

/**
 * The retry on a target the cut may have taken the killed attempt's commit from: it must write the
 * load exactly when the load did not survive (`mutated` true), and say it found it otherwise
 * (`mutated` false: already complete, or a commit proven by the fence); never success without the
 * rows, never a second write.
 */
export function recoveryCheck(retry: AttemptRecord, landed: boolean): CheckRecord {
  const name = POWER_LOSS_RECOVERY;
  const found = landed ? 'the load survived the cut' : 'the cut left the target without the load';
  if (retry.exit_code !== 0)
    return {
      name,
      verdict: 'FAIL',
      detail: `${found}; the retry exited ${retry.exit_code ?? retry.signal} (${retry.error_code ?? 'no code'})`,
    };
  if (retry.mutated === !landed)
    return {
      name,
      verdict: 'PASS',
      detail: `${found}; the retry ${landed ? 'found it and wrote nothing' : 'wrote it'} (${retry.status ?? 'no status'})`,
    };
  return {
    name,
    verdict: 'FAIL',
    detail: `${found}, but the retry reported ${retry.status ?? 'no status'} with mutated ${String(retry.mutated)}`,
  };
}

/**
 * Moves what the cut and the retry left of an embedded database file (and its -wal/-shm) from the backing
 * folder to `file`'s usual path (replacing the link a target cell made there), where the runner's
 * checkers read it.
 */
function handBack(backing: string, file: string): void {
  if (!existsSync(backing)) return;
  const name = basename(file);
  for (const entry of readdirSync(backing))
    if (entry === name || entry === `${name}-wal` || entry === `${name}-shm`)
      renameSync(join(backing, entry), join(dirname(file), entry));
}

/**
 * A cut cell's outcome: the killed attempt and the retry, which must complete; the cut's own checks;
 * what the filesystem still held unsynced when the power went (and what else the cell measured).
 */
function cutOutcome(
  attempts: CellOutcome['attempts'],
  checks: CheckRecord[],
  atCut: Pick<LossyFsStats, 'unsynced' | 'dirsahead'>,
  measured: Readonly<Record<string, number>> = {},
): CellOutcome {
  return completedOutcome(attempts, checks, {
    unsynced_files_at_cut: atCut.unsynced,
    unsynced_dirs_at_cut: atCut.dirsahead,
    ...measured,
  });
}

/** Where a journal cell's run keeps its state on the mount: two folders the first attempt creates. */
const STATE_ON_MOUNT = ['pipelines', 'dpone-state'] as const;

/**
 * The cell's workload as a pipeline that names no journal would have it: `execution.state_dir` a
 * folder on the mount that does not exist yet, so the run creates it and its default
 * `journal.db` in it — the folders' entries must survive the cut as well as the journal's pages.
 */
function defaultJournalWorkload(workloadFile: string, stateDir: string): string {
  const document = JSON.parse(readFileSync(workloadFile, 'utf8')) as {
    journal?: string;
    execution?: Record<string, unknown>;
  };
  delete document.journal;
  document.execution = { ...document.execution, state_dir: stateDir };
  const copy = join(dirname(workloadFile), 'workload-power-loss.json');
  writeFileSync(copy, workloadText(document));
  return copy;
}

async function runJournal(run: CellRun, at: TraceOccurrence): Promise<CellOutcome> {
  // A journal kept in one local file (its part's file operations), as the embedded engine's is.
  const ops = run.fixture.journalFile;
  if (ops === undefined)
    return unverifiedOutcome(
      `the route's journal is not a ${(await embeddedHost()).label} file: no power-loss cell for it`,
    );
  const journalFile = ops.path;
  const backing = join(run.dir, 'power-durable');
  const started = await startLossyFs({ backing });
  if (!started.available) return unverifiedOutcome(started.reason, 'power-loss-filesystem');
  const fs: LossyFs = started.fs;
  let outcome: CellOutcome;
  try {
    const stateDir = join(fs.mountPoint, ...STATE_ON_MOUNT);
    const onFs = join(stateDir, 'journal.db');
    const command = [
      'run',
      '--workload',
      defaultJournalWorkload(run.fixture.workloadFile, stateDir),
      '--json',
    ];
    const first = await run.killAt('first', at, { command });
    if (!first.hit) return { attempts: [first.record], hit: false };
    // The SIGKILL and the cut together: the killed attempt's committed journal, then what survives.
    const committed = ops.image(onFs, 'before-cut');
    const atCut: LossyFsStats = await fs.stats();
    await fs.cutPower();
    const survived = ops.image(onFs, 'after-cut');
    // The leases are in the journal on the mount, not at the cell's usual journal path.
    if (survived !== null) await run.expireLeases(() => ops.open(onFs));
    const retry = await run.run('retry', { command });
    await fs.syncAll();
    outcome = cutOutcome([first.record, retry], [durableCheck('journal', committed, survived)], atCut);
  } finally {
    await fs[Symbol.asyncDispose]();
    handBack(join(backing, ...STATE_ON_MOUNT), journalFile);
  }
  return outcome;
}

async function runTarget(run: CellRun, at: TraceOccurrence): Promise<CellOutcome> {
  const { targetFile, targetImage } = run.fixture;
  if (
    targetFile === undefined ||
    targetImage === undefined ||
    !existsSync(targetFile) ||
    run.fixture.journalFile === undefined
  )
    return unverifiedOutcome(
      `the route's target is not one local ${(await embeddedHost()).label} file in the cell: no power-loss cell for it`,
    );
  const { inspector } = run.fixture;
  const images = await targetImages(inspector);
  const backing = join(run.dir, 'power-durable-target');
  const started = await startLossyFs({ backing });
  if (!started.available) return unverifiedOutcome(started.reason, 'power-loss-filesystem');
  const fs: LossyFs = started.fs;
  const onFs = join(fs.mountPoint, basename(targetFile));
  let outcome: CellOutcome;
  let moved = false;
  try {
    // The target as the cell prepared it goes onto the filesystem and is synced there (the cut
    // takes only what the attempts wrote), behind a link at its usual path: the engine follows the
    // link (its -wal and -shm land on the mount too), the workers and the inspector find it there.
    moveFile(targetFile, onFs, ['-wal', '-shm']);
    moved = true;
    await fs.syncAll();
    symlinkSync(onFs, targetFile);
    const first = await run.killAt('first', at);
    if (!first.hit) return { attempts: [first.record], hit: false };
    // Read-only before the cut: a read-write open would checkpoint and sync what the attempt left.
    const committed = targetImage(onFs, 'before-cut');
    const atCut: LossyFsStats = await fs.stats();
    await fs.cutPower();
    const survived = targetImage(onFs, 'after-cut');
    const checks = [
      durableCheck('target', committed, survived),
      await atomicVisibility(inspector, images, 'after the cut'),
    ];
    const landed = (await targetNow(inspector)).digest === images.loaded;
    await run.expireLeases();
    const retry = await run.run('retry');
    checks.push(recoveryCheck(retry, landed));
    outcome = cutOutcome([first.record, retry], checks, atCut, { load_survived_cut: landed ? 1 : 0 });
  } finally {
    if (moved) await fs.syncAll();
    await fs[Symbol.asyncDispose]();
    // Back where the runner's checkers read it: the link replaced by the file.
    if (moved) {
      if (isLink(targetFile)) unlinkSync(targetFile);
      handBack(backing, targetFile);
    }
  }
  return outcome;
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/** The journal's entries as the harness reads them where they live: `<state> v<version>` each, by operation. */
async function journalStates(fixture: CellFixture): Promise<string[]> {
  const journal = await fixture.openJournal();
  try {
    const states: string[] = [];
    for (const id of await journal.list()) {
      const entry = await journal.get(id);
      if (entry) states.push(`${entry.state} v${entry.version}`);
    }
    return states;
  } finally {
    await journal.close();
  }
}

/**
 * `power-loss-acknowledged`: an operation the killed attempt had been told was COMPLETE (its
 * journal said so before the cut) must still have its load in the target after it; success
 * reported for data that did not survive is a failure of its own, whatever the journal says now.
 */
export function acknowledgedCheck(before: readonly string[], landed: boolean): CheckRecord {
  const complete = before.some((state) => state.startsWith('COMPLETE '));
  if (!complete)
    return {
      name: POWER_LOSS_ACKNOWLEDGED,
      verdict: 'PASS',
      detail: `nothing was acknowledged COMPLETE before the cut (${before.join(', ') || 'no entry'})`,
    };
  return landed
    ? {
        name: POWER_LOSS_ACKNOWLEDGED,
        verdict: 'PASS',
        detail: 'the operation acknowledged COMPLETE before the cut still has its load after it',
      }
    : {
        name: POWER_LOSS_ACKNOWLEDGED,
        verdict: 'FAIL',
        detail: 'the operation was acknowledged COMPLETE before the cut, and its load is gone after it',
      };
}

/**
 * A server's data directory on the power-loss filesystem (the target's, with the journal on that
 * server): the cell's target and journal move onto a server of their own whose data directory is on
 * the mount (the unsafe variant's server never syncs), the prepared state is synced, the first
 * attempt is SIGKILLed at the point, then the server (SIGKILL, postmaster and backends) and the
 * power cut with it; the server restarts (crash recovery) and the retry runs. What the storage
 * held before the cut (read through the live server) must be what it holds after.
 */
async function runServer(run: CellRun, at: TraceOccurrence): Promise<CellOutcome> {
  const { fixture } = run;
  const fingerprint = fixture.fingerprint?.bind(fixture);
  if (!fixture.isolateServers || !fingerprint)
    return unverifiedOutcome(
      `route ${run.cell.route} owns no server whose data directory it can cut power under, or cannot read its state`,
    );
  const servers = await serversOnStorage(
    run,
    { powerLoss: { neverSyncs: SERVER_SYNC_OFF.includes(run.cell.variant ?? '') } },
    'power',
    {
      filesystem: 'the power-loss filesystem',
      requirement: 'power-loss-filesystem',
      cannot: 'owns no server whose data directory it can cut power under, or cannot read its state',
    },
  );
  if (!gotServers(servers)) return servers;
  // Believed only when shown (serversOnStorage): every data directory is on the mount.
  const { target, all: powered } = servers;
  const { inspector } = fixture;
  for (const server of powered) await server.power.syncAll();
  const images = await targetImages(inspector);
  const synced = await target.power.stats();
  const first = await run.killAt('first', at);
  if (!first.hit) return { attempts: [first.record], hit: false };
  // What the killed attempt left, read through the live server (a read syncs nothing).
  const committed = await fingerprint();
  const told = await journalStates(fixture);
  const atCut = await target.power.stats();
  // The server really wrote through the mount (the attempt's commits reached this filesystem).
  if (atCut.writes <= synced.writes)
    return {
      ...unverifiedOutcome(
        'the target server wrote nothing through the power-loss filesystem during the attempt: a cut there proves nothing',
        'power-loss-filesystem',
      ),
      attempts: [first.record],
    };
  for (const server of powered) await server.kill('SIGKILL');
  for (const server of powered) await server.power.cut();
  for (const server of powered) await server.start();
  const survived = await fingerprint();
  const after = await journalStates(fixture);
  const landed = (await targetNow(inspector)).digest === images.loaded;
  const checks = [
    durableCheck(
      'server',
      `${told.join(', ') || 'no entry'}; ${committed.slice(0, 23)}`,
      `${after.join(', ') || 'no entry'}; ${survived.slice(0, 23)}`,
    ),
    await atomicVisibility(inspector, images, 'after the cut'),
    acknowledgedCheck(told, landed),
  ];
  await run.expireLeases();
  const retry = await run.run('retry');
  checks.push(recoveryCheck(retry, landed));
  return cutOutcome([first.record, retry], checks, atCut, {
    writes_through_mount: atCut.writes,
    load_survived_cut: landed ? 1 : 0,
  });
}

async function runPowerLoss(run: CellRun): Promise<CellOutcome> {
  const { at, storage = 'journal' } = run.cell.params as unknown as PowerLossParams;
  if (storage === 'server') return runServer(run, at);
  return storage === 'target' ? runTarget(run, at) : runJournal(run, at);
}

/**
 * power-loss: the embedded file journal on the power-loss filesystem (harness/env/lossyfs). At every
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
