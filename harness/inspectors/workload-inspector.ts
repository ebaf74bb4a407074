import { invalidInput } from '../../src/contracts/errors.ts';
import type { TargetFirstDifference, TargetSnapshot } from '../evidence/evidence-types.ts';
import type { RowSetDigest, SummaryReading, TargetSetDigest } from '../checkers/digest-stream.ts';
import { snapshotFromSummaries } from '../checkers/digest-stream.ts';
import type { ParityOptions } from './parity-basis.ts';
import { keptRows } from './parity-basis.ts';
import type { SnapshotOptions } from './target-inspector.ts';

/**
 * What every engine's target inspector shares: the workload shape it is built for, and the end of
 * a one-pass snapshot. The reading of rows, audit and source is each engine's own.
 */

/**
 * Refuses a workload without columns or natural key (a row's digest covers the columns, a
 * duplicate is told by its key): `label` names the engine, e.g. "the <label> inspector needs…".
 */
export function requireWorkloadShape(
  label: string,
  options: { readonly columns: readonly string[]; readonly naturalKey: readonly string[] },
): void {
  if (options.naturalKey.length === 0 || options.columns.length === 0) {
    throw invalidInput(`the ${label} inspector needs the workload columns and natural key`, {
      field: 'data.natural_key',
    });
  }
}

/** One pass's digests and audit, before the rows a load keeps are added to what is expected. */
export interface DigestReading {
  readonly target: TargetSetDigest;
  /** The source partition's rows, added as they were read. */
  readonly expected: RowSetDigest;
  readonly parity: ParityOptions;
  readonly mutations: SummaryReading['mutations'];
  readonly markerKind: SummaryReading['markerKind'];
  readonly batchRows: number;
  /** Reads the rows again for the first differing key: asked only without parity, and unless `options` skip it. */
  readonly firstDifference: () => Promise<TargetFirstDifference | undefined>;
}

/** The snapshot of one pass: the rows the target held before and must keep join the expected set. */
export function snapshotOfReading(
  reading: DigestReading,
  options: SnapshotOptions = {},
): Promise<TargetSnapshot> {
  for (const row of keptRows(reading.parity)) reading.expected.add(row);
  return snapshotFromSummaries({
    target: reading.target.finish(),
    expected: reading.expected.finish(),
    mutations: reading.mutations,
    markerKind: reading.markerKind,
    batchRows: reading.batchRows,
    ...(options.firstDifference === false ? {} : { firstDifference: reading.firstDifference }),
  });
}
