import { existsSync, lstatSync, readFileSync, symlinkSync, unlinkSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { JournalFileOperations } from '../routes/route.ts';
import { moveFile } from './storage-files.ts';

/**
 * What the storage fault kinds that refuse writes (full-disk, read-only-disk) share: the storage
 * moved onto the fault's own file system behind a link at its usual path, and the error line a
 * refused attempt printed.
 */

export type RefusedStorage = 'journal' | 'target';

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
