import { existsSync, lstatSync, readFileSync, symlinkSync, unlinkSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { AttemptRecord, CheckRecord } from '../evidence/evidence-types.ts';
import type { CellDraft } from '../plan/cell.ts';
import type { TraceOccurrence } from '../plan/trace.ts';
import { occurrenceKey } from '../plan/trace.ts';
import type { JournalFileOperations } from '../routes/route.ts';
import { transitionPoints } from './loss-points.ts';
import { moveFile } from './storage-files.ts';

/**
 * What the storage fault kinds that refuse writes (full-disk, read-only-disk) share: their cells,
 * the storage moved onto the fault's own file system behind a link at its usual path, and how the
 * refused attempt's error must read.
 */

/** The storage a refusing fault sits under: a local file (journal, target) or a server's data directory. */
export type RefusedStorage = 'journal' | 'target' | 'server';

/** Whether a path exists as a file or a (possibly dangling) link. */
function present(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** The `{"error": …}` line a `--json` run printed on stderr; never copied into evidence. */
export function reportedError(stderrFile: string): { message?: string; hint?: string } {
  if (!existsSync(stderrFile)) return {};
  for (const line of readFileSync(stderrFile, 'utf8').split('\n').reverse()) {
    if (!line.startsWith('{')) continue;
    try {
      return (JSON.parse(line) as { error?: { message?: string; hint?: string } }).error ?? {};
    } catch {
      // not our line
    }
  }
  return {};
}

/** A cell's journal or target living on a fault's file system. */
export interface StorageOnMount {
  /** Where the cell keeps it (now a link). */
  readonly usual: string;
  /** Where it really is, on the mount. */
  readonly onMount: string;
  /** Puts it back at its usual path (before the mount goes), where the runner's checkers read it. */
  restore(): void;
}

/**
 * Moves `storage` onto `mountPoint` behind a link at its usual path: the engine follows the link
 * (its side files land on the mount too), and the harness's readers and lease clock find it where
 * they always do. The journal is created there first (empty, schema only): a missing one would be
 * created beside the link and linked over it.
 */
export async function moveOntoMount(
  storage: RefusedStorage,
  journal: JournalFileOperations,
  targetFile: string,
  mountPoint: string,
): Promise<StorageOnMount> {
  const usual = storage === 'journal' ? journal.path : targetFile;
  const onMount = join(mountPoint, basename(usual));
  // The side files the journal's engine keeps beside its file (the target's too: these routes keep
  // both in one engine; a route that does not gives no local target file).
  const sides = journal.sideSuffixes;
  if (storage === 'target') moveFile(targetFile, onMount, sides);
  else await journal.create(onMount);
  symlinkSync(onMount, usual);
  return {
    usual,
    onMount,
    restore() {
      if (!existsSync(onMount)) return;
      if (present(usual)) unlinkSync(usual);
      moveFile(onMount, usual, sides);
    },
  };
}

/**
 * A server's points: right after every journal write and after the target's commit. The `:before`
 * points are left out (each holds what the `:after` point before it held): a server cell costs a
 * cluster of its own, seconds, not a local file's milliseconds.
 */
export function serverPoints(clean: readonly TraceOccurrence[]): TraceOccurrence[] {
  return transitionPoints(clean).filter((at) => at.point.endsWith(':after'));
}

/**
 * One storage fault's cells: each storage at every transition point of the clean trace (a
 * server's at its serverPoints).
 */
export function storageCells(
  kind: 'full-disk' | 'read-only-disk',
  storages: readonly RefusedStorage[],
  clean: readonly TraceOccurrence[],
): CellDraft[] {
  return storages.flatMap((storage) =>
    (storage === 'server' ? serverPoints(clean) : transitionPoints(clean)).map((at) => ({
      localId: `${storage}/${occurrenceKey(at)}`,
      fault: { kind, storage, point: at.point, hit: at.hit, attempt: 1 },
      params: { at, storage } satisfies StorageCellParams,
      sensitive: false,
    })),
  );
}

export interface StorageCellParams {
  readonly at: TraceOccurrence;
  readonly storage: RefusedStorage;
}

/** How a storage fault's refusal must read: its check, its exit and code, what names the cause and the way out. */
export interface RefusalRule {
  readonly check: string;
  /** "the journal's disk was full", "the target's file system was read-only". */
  readonly condition: (storage: RefusedStorage) => string;
  readonly exit: number;
  readonly code: string;
  readonly cause: RegExp;
  readonly causeText: string;
  readonly hint: RegExp;
  readonly hintText: string;
  /** The PASS detail of an attempt that completed: it needed no write the fault refused. */
  readonly completed: (storage: RefusedStorage, attempt: AttemptRecord) => string;
}

/**
 * The attempt that met the fault stopped with the rule's exit and code, its error naming the file,
 * the cause and the way out, or it needed no write the fault refused and completed (exit 0, judged
 * by the end-state checks like every success). Anything else FAILs.
 */
export function refusalCheck(
  rule: RefusalRule,
  attempt: AttemptRecord,
  storage: RefusedStorage,
  paths: readonly string[],
  stderrFile: string,
): CheckRecord {
  const name = rule.check;
  if (attempt.exit_code === 0) return { name, verdict: 'PASS', detail: rule.completed(storage, attempt) };
  if (attempt.exit_code !== rule.exit || attempt.error_code !== rule.code)
    return {
      name,
      verdict: 'FAIL',
      detail: `${rule.condition(storage)}: the attempt exited ${attempt.exit_code ?? attempt.signal} (${attempt.error_code ?? 'no code'}), not ${rule.exit} ${rule.code}`,
    };
  const { message = '', hint = '' } = reportedError(stderrFile);
  const named = paths.some((path) => message.includes(path));
  // A file's path, or (a server's data directory) the server's part the refusal came from.
  const what = storage === 'server' ? "the server's part" : `the ${storage} file`;
  const cause = rule.cause.test(message);
  const wayOut = rule.hint.test(hint);
  if (named && cause && wayOut)
    return {
      name,
      verdict: 'PASS',
      detail: `exit ${rule.exit} ${rule.code} naming ${what}, the cause and ${rule.hintText}`,
    };
  const missing = [
    ...(named ? [] : [what]),
    ...(cause ? [] : [`the cause (${rule.causeText})`]),
    ...(wayOut ? [] : [rule.hintText]),
  ];
  return {
    name,
    verdict: 'FAIL',
    detail: `exit ${rule.exit} ${rule.code}, but its error does not name ${missing.join(', ')}`,
  };
}
