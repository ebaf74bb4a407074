import { existsSync, rmSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import { mountTmpfs } from '../env/tmpfs-mount.ts';
import { STORAGE_FULL_LEASE, STORAGE_FULL_REFUSED } from '../evidence/check-names.ts';
import type { AttemptRecord, CheckRecord } from '../evidence/evidence-types.ts';
import { isDponeError } from '../../src/contracts/errors.ts';
import type { CellDraft } from '../plan/cell.ts';
import { gotServers, serversOnStorage } from './server-storage.ts';
import type { TraceOccurrence } from '../plan/trace.ts';
import type { CellFixture, JournalFileOperations, JournalFileReading } from '../routes/route.ts';
import type { FaultSpecOf } from '../scenario/scenario-schema.ts';
import { FULL_DISK_DEFAULT_STORAGES } from '../scenario/scenario-schema.ts';
import { atomicVisibility, targetImages } from './atomic-visibility.ts';
import type { CellOutcome, CellRun, FaultModule, PlanContext } from './fault.ts';
import { TAKEOVER_LEASE_TTL_MS, completedOutcome, unverifiedOutcome } from './fault.ts';
import type { RefusalRule, RefusedStorage, StorageCellParams, StorageOnMount } from './storage-refusal.ts';
import { moveOntoMount, refusalCheck, storageCells } from './storage-refusal.ts';

/** The tmpfs each cell mounts: room for the cell's journal or target and its side files, then filled. */
const MOUNT_SIZE = '4m';

function planFullDisk(spec: FaultSpecOf<'full-disk'>, { traces }: PlanContext): CellDraft[] {
  return storageCells('full-disk', spec.storages ?? FULL_DISK_DEFAULT_STORAGES, traces.clean);
}

/**
 * The attempt that met the full disk either stopped with exit 18 naming the file that could not
 * grow, the cause and "free space, then retry", or had nothing left to write that needed a new
 * block (a write-ahead log reuses its frames) and ended as a run does (exit 0, checked against the
 * target and the journal like every success). Anything else (11 "unreachable", 12 with no cause,
 * 10 "locked") FAILs.
 */
export const FULL_DISK_REFUSAL: RefusalRule = {
  check: STORAGE_FULL_REFUSED,
  condition: (storage) => `the ${storage}'s disk was full`,
  exit: 18,
  code: 'DPONE_STORAGE_FULL',
  // The engine's own (`…_FULL`: an embedded engine's, a server's DISK_FULL) or the operating system's.
  cause: /\(([A-Z]+_FULL|ENOSPC|EDQUOT)\)/,
  causeText: '…_FULL, ENOSPC',
  hint: /^free space/,
  hintText: 'a "free space, then retry" hint',
  completed: (storage, attempt) =>
    `the ${storage} filled at ${attempt.last_point ?? 'its point'} but the attempt needed no new block after it: it completed`,
};

export function refusedCheck(
  first: AttemptRecord,
  storage: RefusedStorage,
  paths: readonly string[],
  stderrFile: string,
): CheckRecord {
  return refusalCheck(FULL_DISK_REFUSAL, first, storage, paths, stderrFile);
}

/**
 * The journal as the refused attempt left it, read by the runtime's own reader. A full target: the
 * attempt must have handed its lease back (the next run starts at once). A full journal cannot
 * take the release either (no block for it): the lease stays until its TTL, and the journal must
 * read whole (every entry and its history) at the last transition the attempt had committed.
 */
async function leaseCheck(
  journal: JournalFileOperations,
  operationId: string | null,
  storage: RefusedStorage,
  first: AttemptRecord,
): Promise<CheckRecord> {
  if (first.exit_code === 0) return leaseVerdict(null, true, storage, first);
  const whole = await journal.readsWhole(journal.path);
  const reading = operationId === null || !whole ? null : await journal.read(journal.path, operationId);
  return leaseVerdict(reading, whole, storage, first);
}

/**
 * The same for a server's journal (on the full disk with the target), read through the runtime's
 * own journal code: its one entry (a cell runs one operation), or whether it does not read.
 */
async function serverLeaseCheck(fixture: CellFixture, first: AttemptRecord): Promise<CheckRecord> {
  if (first.exit_code === 0) return leaseVerdict(null, true, 'server', first);
  let reading: JournalFileReading = { kind: 'absent' };
  try {
    const journal = await fixture.openJournal();
    try {
      for (const id of await journal.list()) {
        const entry = await journal.get(id);
        if (entry)
          reading = { kind: 'entry', entry: id, state: entry.state, leaseHeld: entry.lease !== null };
      }
    } finally {
      await journal.close();
    }
  } catch (error) {
    return leaseVerdict(null, false, 'server', first, isDponeError(error) ? error.code : 'unreadable');
  }
  return leaseVerdict(reading, true, 'server', first);
}

function leaseVerdict(
  reading: JournalFileReading | null,
  whole: boolean,
  storage: RefusedStorage,
  first: AttemptRecord,
  unreadable?: string,
): CheckRecord {
  const name = STORAGE_FULL_LEASE;
  if (first.exit_code === 0)
    return { name, verdict: 'PASS', detail: 'the attempt completed: nothing to hand back' };
  if (!whole)
    return {
      name,
      verdict: 'FAIL',
      detail: `after the full disk the journal does not read whole${unreadable ? ` (${unreadable})` : ''}: something was half-written`,
    };
  if (reading === null || reading.kind === 'absent')
    return { name, verdict: 'PASS', detail: 'the attempt stopped before the operation had an entry' };
  if (reading.kind === 'error')
    return { name, verdict: 'FAIL', detail: `the journal's entry does not read (${reading.code})` };
  if (!reading.leaseHeld)
    return {
      name,
      verdict: 'PASS',
      detail: `the lease was handed back; the entry waits at ${reading.state}`,
    };
  if (storage === 'journal' || storage === 'server')
    return {
      name,
      verdict: 'PASS',
      detail: `the full ${storage === 'server' ? "server's disk (the journal is on it)" : 'journal'} could not take the release: the lease runs out at its TTL; the journal reads whole at ${reading.state}`,
    };
  return {
    name,
    verdict: 'FAIL',
    detail: `the attempt exited ${first.exit_code ?? first.signal} on a full target but still holds the lease (entry at ${reading.state}): the next run must wait it out`,
  };
}

/** A server whose data directory is on a size-limited filesystem. */

/**
 * A server's data directory (the target's, with the journal on it) on a size-limited filesystem:
 * the cell's target and journal move onto a server of their own whose data directory is on a tmpfs
 * of the cell; at the point the parked attempt meets that filesystem filled to its last block
 * (shown by the filesystem itself, never believed), then goes on. Its refusal must name the server's
 * part (`<label> target`, `<label> commit journal`) and the cause; the ballast removed, one retry.
 */
async function runServer(run: CellRun, at: TraceOccurrence): Promise<CellOutcome> {
  const { fixture } = run;
  const servers = await serversOnStorage(run, { fullDisk: true }, 'disk', {
    filesystem: 'a size-limited filesystem',
    requirement: 'storage-full-filesystem',
    cannot: 'owns no server whose data directory it can fill',
  });
  if (!gotServers(servers)) return servers;
  const { target, all: filled } = servers;
  const stderrFile = join(run.dir, 'first.stderr');
  const images = await targetImages(fixture.inspector);
  const worker = run.start('first', { stop: at, stderrFile });
  const parked = await worker.parked();
  if (parked === null) return { attempts: [await worker.result()], hit: false };
  for (const server of filled) await server.disk.fill();
  // Full, as the filesystem itself says: not one block left for a non-root writer.
  const full = filled.every((server) => statfsSync(server.disk.mountPoint).bavail === 0);
  worker.resume();
  const first = await worker.result();
  for (const server of filled) await server.disk.free();
  if (!full)
    return {
      ...unverifiedOutcome(
        'the filesystem under the server still had free blocks after the fill: the attempt met no full disk',
        'storage-full-filesystem',
      ),
      attempts: [first],
    };
  const parts = [`${target.label} target`, `${target.label} commit journal`];
  const checks = [refusalCheck(FULL_DISK_REFUSAL, first, 'server', parts, stderrFile)];
  checks.push(await atomicVisibility(fixture.inspector, images, 'after the refused attempt'));
  checks.push(await serverLeaseCheck(fixture, first));
  await run.expireLeases();
  const retry = await run.run('retry');
  return completedOutcome([first, retry], checks, { first_exit: first.exit_code });
}

async function runFullDisk(run: CellRun): Promise<CellOutcome> {
  const { at, storage } = run.cell.params as unknown as StorageCellParams;
  if (storage === 'server') return runServer(run, at);
  const journal = run.fixture.journalFile;
  const targetFile = run.fixture.targetFile;
  if (journal === undefined || targetFile === undefined || !existsSync(targetFile))
    return unverifiedOutcome(
      "the route's journal or target is not one local file in the cell: no full-disk cell for it",
    );
  const started = await mountTmpfs(join(run.dir, 'full-disk'), MOUNT_SIZE);
  if (!started.available) return unverifiedOutcome(started.reason, 'storage-full-filesystem');
  const mount = started.mount;
  const stderrFile = join(run.dir, 'first.stderr');
  let placed: StorageOnMount | undefined;
  try {
    const images = await targetImages(run.fixture.inspector);
    placed = await moveOntoMount(storage, journal, targetFile, mount.mountPoint);
    const worker = run.start('first', { stop: at, stderrFile });
    const parked = await worker.parked();
    if (parked === null) return { attempts: [await worker.result()], hit: false };
    const ballast = mount.fill();
    worker.resume();
    const first = await worker.result();
    const checks = [refusedCheck(first, storage, [placed.usual, placed.onMount], stderrFile)];
    // The fault lifted: what the refused attempt left, then one retry.
    rmSync(ballast);
    checks.push(await atomicVisibility(run.fixture.inspector, images, 'after the refused attempt'));
    checks.push(await leaseCheck(journal, await journal.settle(), storage, first));
    await run.expireLeases();
    const retry = await run.run('retry');
    return completedOutcome([first, retry], checks, { first_exit: first.exit_code });
  } finally {
    placed?.restore();
    await mount[Symbol.asyncDispose]();
  }
}

/**
 * full-disk: the route's journal file, or its target file, on a size-limited tmpfs. At every
 * transition point of the clean trace the first attempt parks, the harness fills the tmpfs to its
 * last block (a ballast file) and lets it go on: it must stop with exit 18 naming the file and the
 * cause (or complete, when nothing it still had to write needed a new block), leave the target
 * with none or all of the load, and not leave its lease behind; then the ballast goes and one
 * retry must land exactly one mutation. UNVERIFIED where a tmpfs cannot be mounted (not root) or
 * the route keeps its journal or target in no local file.
 */
export const fullDiskFault: FaultModule<'full-disk'> = {
  kind: 'full-disk',
  leaseTtlMs: () => TAKEOVER_LEASE_TTL_MS,
  plan: planFullDisk,
  run: runFullDisk,
};
