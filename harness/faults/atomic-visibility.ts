import type { TargetDigest, TargetInspector } from '../inspectors/target-inspector.ts';
import type { CheckRecord } from '../evidence/evidence-types.ts';
import { ATOMIC_VISIBILITY } from '../evidence/check-names.ts';

/** The two states a killed attempt may leave the target in, as order-independent digests. */
export interface TargetImages {
  /** The target as the cell began, before any worker ran (a replace's old partition rows included). */
  readonly before: string;
  /** The target once the whole load landed: what parity expects at the end. */
  readonly loaded: string;
  readonly beforeRows: number;
  readonly loadedRows: number;
}

/** Reads both images with the harness's own inspector, before the first worker starts. */
export async function targetImages(inspector: TargetInspector): Promise<TargetImages> {
  const snapshot = await inspector.snapshot({ firstDifference: false });
  return {
    before: snapshot.target_digest,
    loaded: snapshot.source_digest,
    beforeRows: snapshot.row_count,
    loadedRows: snapshot.source_row_count,
  };
}

/**
 * `atomic-visibility`: right after a SIGKILL (or while a worker is stopped), before any other worker
 * runs, the target must hold exactly
 * its rows from before the attempt or exactly the whole load. The mutation (append, or a replace's
 * delete and insert) commits in one step on every certified target; anything between — a replace
 * whose partition is already emptied but not loaded, half a batch — is a window in which readers
 * see lost rows, even when a later retry repairs the end state that parity sees. Read from the
 * target's own rows (digests and counts only), never from the fence.
 */
export async function atomicVisibility(
  inspector: TargetInspector,
  images: TargetImages,
  when: string,
): Promise<CheckRecord> {
  return visibilityOf(await targetNow(inspector), images, when);
}

/** `atomic-visibility` of a target already read (targetNow): for a caller that needs the digest itself too. */
export function visibilityOf(now: TargetDigest, images: TargetImages, when: string): CheckRecord {
  const name = ATOMIC_VISIBILITY;
  if (now.digest === images.before)
    return { name, verdict: 'PASS', detail: `${when} the target held its rows from before` };
  if (now.digest === images.loaded)
    return { name, verdict: 'PASS', detail: `${when} the target held the whole load` };
  return {
    name,
    verdict: 'FAIL',
    detail:
      `${when} the target held neither its rows from before (${images.beforeRows}) nor the ` +
      `whole load (${images.loadedRows}): ${now.rows} rows, a partial mutation visible to readers`,
  };
}

/** The target's rows alone when the inspector can read them so, else from a whole snapshot. */
export async function targetNow(inspector: TargetInspector): Promise<TargetDigest> {
  if (inspector.targetDigest) return inspector.targetDigest();
  const snapshot = await inspector.snapshot({ firstDifference: false });
  return { digest: snapshot.target_digest, rows: snapshot.row_count };
}
