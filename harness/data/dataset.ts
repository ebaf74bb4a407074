import { deriveSeed, randomInt, seededRandom } from './seeded-random.ts';
import type { CanonicalValue, DatasetType } from './canonical-value.ts';
import { cellInstant } from './cell-instants.ts';
import { cellBig, cellPrice } from './cell-numbers.ts';
import { cellLabel } from './cell-text.ts';

/**
 * A cell's data, independent of any engine: column types and rows in canonical form
 * (canonical-value.ts). A route's source part writes `source` in its engine's own types; its
 * target part creates the target table for these columns and writes `target` (the rows it holds
 * before any worker starts); the inspector reads both back with each engine's own reader, maps
 * every value to its canonical form and compares per value. One module, so a richer dataset
 * (issue 11) changes every route at once.
 */
export interface DatasetColumn {
  readonly name: string;
  readonly type: DatasetType;
}

export type DatasetRow = Readonly<Record<string, CanonicalValue>>;

/** Rows that can be iterated (more than once) and counted without being held. */
export interface DatasetRows extends Iterable<DatasetRow> {
  readonly length: number;
}

export interface Dataset {
  /** The source table's name (the target table is named by the target part). */
  readonly table: string;
  readonly columns: readonly DatasetColumn[];
  readonly naturalKey: readonly string[];
  /** The one partition a cell loads. */
  readonly partition: { readonly column: string; readonly value: string };
  /**
   * Every source row: the loaded partition and rows of a neighbouring one a load must leave out.
   * Generated again on each iteration, never held: a 1,000,000-row partition is ~350 MB of row
   * objects, which a cell only needs once, to write its source.
   */
  readonly source: DatasetRows;
  /**
   * Rows the target holds before any worker runs (written before the audit, so they are no
   * mutation): for replace-partition, rows in the loaded partition the load must remove and rows
   * of a neighbouring partition it must leave alone.
   */
  readonly target: readonly DatasetRow[];
}

/** What a cell asks of its dataset (CellWorkloadOptions carries these). */
export interface DatasetOptions {
  /** Source rows in the loaded partition (0: an empty partition). */
  readonly rows: number;
  readonly strategy: 'append' | 'replace-partition';
  readonly seed: number;
}

export const DATASET_DAY = '2026-07-05';
/** The neighbouring partition: a date whose day and month both read as a month (DMY/MDY mix-ups show). */
export const NEIGHBOUR_DAY = '2026-07-06';
const NEIGHBOUR_ROWS = 5;
const TARGET_PARTITION_ROWS = 3;
const TARGET_NEIGHBOUR_ROWS = 2;
/** Ids of target-only rows start here, far from the source's, so a key never collides by accident. */
const TARGET_ID_BASE = 900_000;

/** TARGET_ID_BASE, or above every source id for a partition that large (1,000,000 rows: 10,000,000). */
export function targetIdBase(rows: number): number {
  return Math.max(TARGET_ID_BASE, 10 ** String(rows + NEIGHBOUR_ROWS).length);
}

export const DATASET_COLUMNS: readonly DatasetColumn[] = [
  { name: 'id', type: 'integer' },
  { name: 'day', type: 'date' },
  { name: 'amount', type: 'double' },
  { name: 'label', type: 'text' },
  { name: 'big', type: 'integer' },
  { name: 'price', type: 'decimal' },
  { name: 'at', type: 'timestamp' },
];

function row(id: number, day: string, random: () => number): DatasetRow {
  // amount/7: a double whose shortest exact text needs up to 17 digits; every fifth row a double
  // with no fraction (REAL 20.0: it must not land as an integer, issue 29).
  const amount = String(randomInt(random, 1, 100_000) / (id % 5 === 0 ? 1 : 7));
  // label: NULL next to '', NFC and NFD, emoji, right-to-left and long text (cell-text.ts).
  const label = cellLabel(id, randomInt(random, 1, 999));
  // big: beyond 2^53 and up to 2^63 - 1, both signs; price: exact decimals a float rounds (cell-numbers.ts).
  const [big, price] = [cellBig(id, random), cellPrice(id, random)];
  // at: instants with +05:30, -08:00, DST edges and Z, to the microsecond (cell-instants.ts).
  return { id: String(id), day, amount, label, big, price, at: cellInstant(id, random) };
}

/** The seeded source rows, made as they are iterated: the same rows, in the same order, each time. */
class SourceRows implements DatasetRows {
  readonly length: number;
  readonly #partitionRows: number;
  readonly #seed: number;

  constructor(partitionRows: number, seed: number) {
    this.length = partitionRows + NEIGHBOUR_ROWS;
    this.#partitionRows = partitionRows;
    this.#seed = seed;
  }

  *[Symbol.iterator](): Iterator<DatasetRow> {
    const random = seededRandom(deriveSeed(this.#seed, 'source-rows'));
    for (let id = 1; id <= this.length; id++)
      yield row(id, id <= this.#partitionRows ? DATASET_DAY : NEIGHBOUR_DAY, random);
  }
}

/** The seeded dataset of a cell: the same options give the same rows on every machine. */
export function generateDataset(options: DatasetOptions): Dataset {
  const source = new SourceRows(options.rows, options.seed);
  const target: DatasetRow[] = [];
  if (options.strategy === 'replace-partition') {
    const seeded = seededRandom(deriveSeed(options.seed, 'target-rows'));
    for (let i = 1; i <= TARGET_PARTITION_ROWS + TARGET_NEIGHBOUR_ROWS; i++)
      target.push(
        row(targetIdBase(options.rows) + i, i <= TARGET_PARTITION_ROWS ? DATASET_DAY : NEIGHBOUR_DAY, seeded),
      );
  }
  return {
    table: 'events_src',
    columns: DATASET_COLUMNS,
    naturalKey: ['id'],
    partition: { column: 'day', value: DATASET_DAY },
    source,
    target,
  };
}

/**
 * Rows that arrive in the loaded partition after a first worker read it (a late source row: the
 * zombie's batch and the next holder's differ). Ids follow the dataset's own.
 */
export function lateRows(dataset: Dataset, count: number, seed: number): DatasetRow[] {
  const random = seededRandom(deriveSeed(seed, 'late-rows'));
  // A loop, not Math.max(...ids): spreading a 1,000,000-row partition exceeds V8's argument limit.
  let next = 1;
  for (const source of dataset.source) next = Math.max(next, Number(source.id) + 1);
  return Array.from({ length: count }, (_, i) => row(next + i, dataset.partition.value, random));
}

/**
 * What the target must hold after exactly one load of `partition` (its rows as read from the
 * source now): append adds them to what the target held; replace-partition first removes the
 * target's rows of that partition. Compared by the inspector with what the target holds.
 */
export function expectedTarget(
  before: readonly DatasetRow[],
  partitionRows: readonly DatasetRow[],
  partition: Dataset['partition'],
  strategy: DatasetOptions['strategy'],
): DatasetRow[] {
  const kept =
    strategy === 'replace-partition' ? before.filter((r) => r[partition.column] !== partition.value) : before;
  return [...kept, ...partitionRows];
}

/** Rows in arrays of at most `size`, taken as they are iterated (a generated source is never held whole). */
export function* chunksOf(rows: Iterable<DatasetRow>, size: number): Generator<DatasetRow[]> {
  let chunk: DatasetRow[] = [];
  for (const row of rows) {
    chunk.push(row);
    if (chunk.length === size) {
      yield chunk;
      chunk = [];
    }
  }
  if (chunk.length > 0) yield chunk;
}
