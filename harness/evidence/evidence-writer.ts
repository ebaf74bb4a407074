import { randomBytes } from 'node:crypto';
import { mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { DponeError, ERROR_CODES } from '../../src/contracts/errors.ts';
import { withDigest } from './evidence-digest.ts';
import type { Evidence } from './evidence-types.ts';

export { readEvidence } from './evidence-reader.ts';
export { verifyEvidence } from './evidence-verify.ts';

export const EVIDENCE_FILE = 'evidence.json';
export const LATEST_LINK = 'latest';
export const LATEST_POINTER = 'latest.json';

export interface WriteEvidenceOptions {
  /**
   * Folder whose `latest` link (or `latest.json` pointer) is moved to this run. Default: the
   * parent of `dir` when that parent is named `reports` (the default layout
   * `reports/<run-id>/`), else no link. `null` never links.
   */
  readonly latestRoot?: string | null;
}

export interface WrittenEvidence {
  readonly file: string;
  readonly evidence: Evidence;
  /** What now points at this run: the symlink, the pointer file, or null. */
  readonly latest: string | null;
}

/** Writes text to `file` atomically: a temporary sibling, then a rename over the target. */
export function writeFileAtomic(file: string, text: string): void {
  const temporary = join(dirname(file), `.${basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    writeFileSync(temporary, text, { flush: true });
    renameSync(temporary, file);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw new DponeError(ERROR_CODES.INTERNAL, `could not write ${basename(file)}`, {}, { cause: error });
  }
}

/** Points `root/latest` at `dir`: a relative symlink swapped in atomically, else `root/latest.json`. */
export function updateLatest(root: string, dir: string, runId: string): string {
  mkdirSync(root, { recursive: true });
  const link = join(root, LATEST_LINK);
  const target = relative(root, dir) || '.';
  const temporary = join(root, `.${LATEST_LINK}.${randomBytes(6).toString('hex')}`);
  try {
    symlinkSync(target, temporary, 'dir');
    renameSync(temporary, link);
    return link;
  } catch {
    rmSync(temporary, { force: true });
    const pointer = join(root, LATEST_POINTER);
    writeFileAtomic(
      pointer,
      `${JSON.stringify({ run_id: runId, dir: target, evidence: join(target, EVIDENCE_FILE) }, null, 2)}\n`,
    );
    return pointer;
  }
}

/**
 * Writes `dir/evidence.json` (creating `dir`) with its digest set, atomically, then moves the
 * `latest` pointer. Returns the evidence as written (with its digest).
 */
export function writeEvidence(
  dir: string,
  evidence: Evidence,
  options: WriteEvidenceOptions = {},
): WrittenEvidence {
  const folder = resolve(dir);
  mkdirSync(folder, { recursive: true });
  const sealed = withDigest(evidence);
  const file = join(folder, EVIDENCE_FILE);
  writeFileAtomic(file, `${JSON.stringify(sealed, null, 2)}\n`);
  const parent = dirname(folder);
  const root =
    options.latestRoot === undefined ? (basename(parent) === 'reports' ? parent : null) : options.latestRoot;
  const latest = root === null ? null : updateLatest(resolve(root), folder, sealed.run_id);
  return { file, evidence: sealed, latest };
}
