import type { RawValue } from '../data/canonical-value.ts';
import { canonicalValue } from '../data/canonical-value.ts';
import type { DatasetRow } from '../data/dataset.ts';
import { expectedTarget } from '../data/dataset.ts';
import type { DatasetType } from '../data/canonical-value.ts';
import type { CellScalar } from '../checkers/target-snapshot.ts';

/**
 * What an inspector compares the target with, beyond the source partition it reads itself: the
 * column types (values then compare in their canonical form, so a source read by one engine and
 * a target read by another agree exactly when the values are equal) and the rows the target held
 * before any worker (a replace-partition load must remove those of its partition and keep the
 * others). Without it, values compare as the drivers gave them and the target must equal the
 * source partition.
 */
export interface ParityOptions {
  readonly types?: Readonly<Record<string, DatasetType>>;
  readonly before?: {
    readonly rows: readonly DatasetRow[];
    readonly strategy: 'append' | 'replace-partition';
    readonly partition: { readonly column: string; readonly value: string };
  };
}

type RawRow = Readonly<Record<string, RawValue>>;

/** A row as parity compares it: canonical values when the types are known, else the driver's scalars. */
export function comparableRow(
  row: RawRow,
  columns: readonly string[],
  types: ParityOptions['types'],
): Record<string, CellScalar> {
  const out: Record<string, CellScalar> = {};
  for (const column of columns) {
    const raw = row[column];
    const type = types?.[column];
    if (type) out[column] = canonicalValue(type, raw);
    else if (raw instanceof Uint8Array) out[column] = Buffer.from(raw).toString('hex');
    else if (typeof raw === 'boolean') out[column] = String(raw);
    else out[column] = raw ?? null;
  }
  return out;
}

/**
 * The rows the target held before the load that one load keeps (comparable): with the source
 * partition, what the target must hold. Lets an inspector digest the source one row at a time.
 */
export function keptRows(options: ParityOptions): readonly Record<string, CellScalar>[] {
  return options.before ? expectedRows([], options) : [];
}

/** The rows the target must hold after exactly one load of the source partition read now. */
export function expectedRows(
  sourcePartition: readonly Record<string, CellScalar>[],
  options: ParityOptions,
): readonly Record<string, CellScalar>[] {
  const before = options.before;
  if (!before) return sourcePartition;
  // The dataset's rows as written (an instant keeps its offset there): canonical, as the reads are.
  const rows = before.rows.map((row) => comparableRow(row, Object.keys(row), options.types));
  return expectedTarget(
    rows as readonly DatasetRow[],
    sourcePartition as readonly DatasetRow[],
    before.partition,
    before.strategy,
  );
}
