import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DponeError, ERROR_CODES } from '../../src/contracts/errors.ts';
import { mountTmpfs } from '../env/tmpfs-mount.ts';
import { STORAGE_READ_ONLY_REFUSED, STORAGE_READ_ONLY_UNTOUCHED } from '../evidence/check-names.ts';
import type { AttemptRecord, CheckRecord } from '../evidence/evidence-types.ts';
import type { CellDraft } from '../plan/cell.ts';
import type { JournalFileReading } from '../routes/route.ts';
import type { FaultSpecOf } from '../scenario/scenario-schema.ts';
import { READ_ONLY_DISK_STORAGES } from '../scenario/scenario-schema.ts';
import { targetImages, targetNow, visibilityOf } from './atomic-visibility.ts';
import type { CellOutcome, CellRun, FaultModule, PlanContext } from './fault.ts';
import { TAKEOVER_LEASE_TTL_MS, completedOutcome, unverifiedOutcome } from './fault.ts';
import type { RefusalRule, RefusedStorage, StorageCellParams, StorageOnMount } from './storage-refusal.ts';
import { moveOntoMount, refusalCheck, storageCells } from './storage-refusal.ts';

const MOUNT_SIZE = '4m';

function planReadOnly(spec: FaultSpecOf<'read-only-disk'>, { traces }: PlanContext): CellDraft[] {
  return storageCells('read-only-disk', spec.storages ?? READ_ONLY_DISK_STORAGES, traces.clean);
}

/**
 * The attempt that met the read-only file system stopped with exit 31 PERMISSION_DENIED naming the
 * file, the cause (EROFS, or the engine's …_READONLY) and how to lift it (remount read-write, give
 * write access), or needed no write to that storage at all and ended as a run does (exit 0: the
 * target had committed and only the journal moved). Anything else (10 "locked", 11 "unreachable")
 * FAILs.
 */
export const READ_ONLY_REFUSAL: RefusalRule = {
  check: STORAGE_READ_ONLY_REFUSED,
  condition: (storage) => `the ${storage}'s file system was read-only`,
  exit: 31,
  code: 'DPONE_PERMISSION_DENIED',
  cause: /\((EROFS|[A-Z]+_READONLY)\)/,
  causeText: 'EROFS, …_READONLY',
  // What lifts it: remount read-write, or give write access; never "retry" alone.
  hint: /read-write|write access/,
  hintText: 'a "remount read-write / give write access" hint',
  completed: (storage) =>
    `the ${storage} was read-only, but the attempt needed to write nothing there: it completed`,
};

export function readOnlyRefusedCheck(
  refused: AttemptRecord,
  storage: RefusedStorage,
  paths: readonly string[],
  stderrFile: string,
): CheckRecord {
  return refusalCheck(READ_ONLY_REFUSAL, refused, storage, paths, stderrFile);
}

/** The lease an entry reading records (its JSON's `lease`), or null. */
function leaseOf(reading: JournalFileReading): string | null {
  if (reading.kind !== 'entry') return null;
  const lease = (JSON.parse(reading.entry) as { lease?: unknown }).lease;
  return lease === null || lease === undefined ? null : JSON.stringify(lease);
}

/**
 * What the refused attempt left behind, read from the target's own rows and the journal file:
 * - the target exactly as before the attempt (a read-only journal must stop it before any target
 *   write; a read-only target cannot take one);
 * - the journal reading whole;
 * - no lease of its own (a read-only target: it could write the journal, so it must hand back the
 *   lease it took; a read-only journal: it could take none).
 * A completed attempt (exit 0) is judged by the end-state checks instead.
 */
export function untouchedCheck(
  refused: AttemptRecord,
  target: { readonly before: string; readonly after: string },
  journal: {
    readonly whole: boolean;
    readonly before: JournalFileReading;
    readonly after: JournalFileReading;
  },
): CheckRecord {
  const name = STORAGE_READ_ONLY_UNTOUCHED;
  if (refused.exit_code === 0)
    return { name, verdict: 'PASS', detail: 'the attempt completed: the end-state checks judge it' };
  if (target.after !== target.before)
    return {
      name,
      verdict: 'FAIL',
      detail: `the attempt exited ${refused.exit_code ?? refused.signal} on read-only storage but changed the target's rows`,
    };
  if (!journal.whole)
    return { name, verdict: 'FAIL', detail: 'after the refused attempt the journal does not read whole' };
  if (journal.after.kind === 'error')
    return { name, verdict: 'FAIL', detail: `the journal's entry does not read (${journal.after.code})` };
  const lease = leaseOf(journal.after);
  if (lease !== null && lease !== leaseOf(journal.before))
    return {
      name,
      verdict: 'FAIL',
      detail: `the refused attempt left a lease of its own (entry at ${journal.after.kind === 'entry' ? journal.after.state : '?'}): the next run must wait it out`,
    };
  return {
    name,
    verdict: 'PASS',
    detail:
      'the target held its rows from before, the journal read whole and the attempt left no lease of its own',
  };
}

async function runReadOnly(run: CellRun): Promise<CellOutcome> {
  const { at, storage } = run.cell.params as unknown as StorageCellParams;
  const journal = run.fixture.journalFile;
  const targetFile = run.fixture.targetFile;
  if (journal === undefined || targetFile === undefined || !existsSync(targetFile))
    return unverifiedOutcome(
      "the route's journal or target is not one local file in the cell: no read-only cell for it",
    );
  const started = await mountTmpfs(join(run.dir, 'read-only-disk'), MOUNT_SIZE);
  if (!started.available) return unverifiedOutcome(started.reason, 'storage-read-only-filesystem');
  const mount = started.mount;
  const stderrFile = join(run.dir, 'refused.stderr');
  let placed: StorageOnMount | undefined;
  try {
    const images = await targetImages(run.fixture.inspector);
    placed = await moveOntoMount(storage, journal, targetFile, mount.mountPoint);
    // The kernel refuses a read-only remount while a process holds a file on it open for writing
    // (EBUSY), so the remount comes between steps: the first attempt is killed at the point, the
    // file system goes read-only, and the next attempt meets it from its first write.
    const { record: first, hit } = await run.killAt('first', at);
    if (!hit) return { attempts: [first], hit: false };
    // The killed attempt's lease, expired while the journal can still be read (the clock reads it).
    await run.expireLeases();
    const operationId = await journal.settle();
    const journalBefore =
      operationId === null ? ({ kind: 'absent' } as const) : await journal.read(journal.path, operationId);
    const targetBefore = (await targetNow(run.fixture.inspector)).digest;
    const refusedRemount = await mount.remount('ro');
    if (refusedRemount !== null) return unverifiedOutcome(refusedRemount, 'storage-read-only-filesystem');
    const refused = await run.run('refused', { stderrFile });
    const checks = [readOnlyRefusedCheck(refused, storage, [placed.usual, placed.onMount], stderrFile)];
    // The fault lifted: what the refused attempt left, then one retry.
    const writable = await mount.remount('rw');
    if (writable !== null)
      throw new DponeError(
        ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
        `the read-only cell could not lift its fault: ${writable}`,
      );
    const after = await targetNow(run.fixture.inspector);
    const journalAfter =
      operationId === null ? ({ kind: 'absent' } as const) : await journal.read(journal.path, operationId);
    checks.push(
      untouchedCheck(
        refused,
        { before: targetBefore, after: after.digest },
        { whole: await journal.readsWhole(journal.path), before: journalBefore, after: journalAfter },
      ),
    );
    checks.push(visibilityOf(after, images, 'after the refused attempt'));
    await run.expireLeases();
    const retry = await run.run('retry');
    return completedOutcome([first, refused, retry], checks, { refused_exit: refused.exit_code });
  } finally {
    // A cell that stopped half-way leaves the file system read-only: writable again, so the
    // storage can go back where the runner's checkers read it.
    await mount.remount('rw');
    placed?.restore();
    await mount[Symbol.asyncDispose]();
  }
}

/**
 * read-only-disk: the route's journal file, or its target file, on a tmpfs. At every transition
 * point of the clean trace the first attempt is SIGKILLed, the tmpfs is remounted read-only and
 * the next attempt runs: it must stop with exit 31 naming the file, the cause (EROFS) and how to
 * lift it (or complete, when it needed no write there), leave the target's rows as they were and
 * no lease of its own; then the file system is remounted read-write and one retry must land
 * exactly one mutation. UNVERIFIED where a tmpfs cannot be mounted or remounted (not root).
 */
export const readOnlyDiskFault: FaultModule<'read-only-disk'> = {
  kind: 'read-only-disk',
  leaseTtlMs: () => TAKEOVER_LEASE_TTL_MS,
  plan: planReadOnly,
  run: runReadOnly,
};
