import type { CheckRecord } from '../evidence/evidence-types.ts';
import { STORAGE_UNTOUCHED } from '../evidence/check-names.ts';

/**
 * A route's source, target and fence storage made unreachable for one attempt, in a way the
 * harness itself watches (files moved away and replaced by something their engine cannot open; a
 * listener standing in for the database server that counts every connection; the server's own
 * table statistics). What decides is what the storage shows afterwards, never the attempt's trace.
 */
export interface StorageSeal {
  /** The workload the sealed attempt runs (its source and target point where the seal watches). */
  readonly workloadFile: string;
  /** What was made unreachable, for the evidence (`source.db, target.db moved away`). */
  readonly sealed: string;
  /** Restores the storage as it was and says what was touched meanwhile (empty: nothing). */
  release(): Promise<readonly string[]>;
}

/** The storage check of a sealed attempt, with the attempt's own trace as diagnosis only. */
export function storageCheck(
  seal: StorageSeal,
  touched: readonly string[],
  tracePoints: readonly string[],
  /** How the seal was seen working (SealProbe.detail), for the evidence. */
  verifiedBy?: string,
): CheckRecord {
  const trace =
    tracePoints.length === 0
      ? 'its trace shows no source, target or fence point'
      : `its trace shows ${tracePoints.join(', ')}`;
  return touched.length === 0
    ? {
        name: STORAGE_UNTOUCHED,
        verdict: 'PASS',
        detail: `${seal.sealed}: untouched by the conflicting attempt (${trace})${verifiedBy ? `; ${verifiedBy}` : ''}`,
      }
    : {
        name: STORAGE_UNTOUCHED,
        verdict: 'FAIL',
        detail: `${seal.sealed}: the conflicting attempt touched ${touched.join('; ')} (${trace})`,
      };
}
