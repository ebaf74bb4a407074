import { hash } from 'node:crypto';
import type { TargetAuditTrail, TargetFirstDifference, TargetSnapshot } from '../evidence/evidence-types.ts';
import { canonicalJson } from '../evidence/canonical-json.ts';

/** One row as digests: its natural key and its whole canonical JSON. */
export interface RowDigests {
  readonly key: string;
  readonly row: string;
}

/** One audited insert, in audit (commit) order. `marker` is a transaction id when the target has one. */
export interface AuditedInsert {
  readonly key: string;
  readonly marker: string | null;
}

/** What an inspector read, already reduced to digests; `snapshotFromReading` does the rest. */
export interface TargetReading {
  readonly target: readonly RowDigests[];
  readonly source: readonly RowDigests[];
  readonly inserts: readonly AuditedInsert[];
  readonly markerKind: TargetAuditTrail['marker_kind'];
  /** Source rows of the loaded partition (one whole mutation's size), when `source` holds more. */
  readonly batchRows?: number;
  /**
   * Where the target first differs from `source` (first-difference.ts); kept only without parity,
   * so it is asked for only then (on 1,000,000 rows it groups and sorts every key: minutes on a
   * loaded machine, for a field a passing cell never shows).
   */
  readonly firstDifference?: () => TargetFirstDifference | undefined;
}

export type CellScalar = string | number | bigint | null;

function sha256(text: string): string {
  return `sha256:${hash('sha256', text, 'hex')}`;
}

function plain(value: CellScalar | undefined): string | number | null {
  if (value === undefined) return null;
  return typeof value === 'bigint' ? value.toString() : value;
}

/** Digest of a row's natural key: sha256 of the canonical JSON array of the key values. */
export function keyDigest(row: Readonly<Record<string, CellScalar>>, naturalKey: readonly string[]): string {
  return sha256(keyDigestText(row, naturalKey));
}

/** The text `keyDigest` hashes. */
export function keyDigestText(
  row: Readonly<Record<string, CellScalar>>,
  naturalKey: readonly string[],
): string {
  return canonicalJson(naturalKey.map((column) => plain(row[column])));
}

/** Each column list's members in canonical JSON's key order, each with its key text. */
const sortedMembers = new WeakMap<readonly string[], readonly (readonly [string, string])[]>();

function membersOf(columns: readonly string[]): readonly (readonly [string, string])[] {
  let members = sortedMembers.get(columns);
  if (!members) {
    members = [...new Set(columns)].sort().map((column) => [column, `${JSON.stringify(column)}:`] as const);
    sortedMembers.set(columns, members);
  }
  return members;
}

/**
 * Digest of a whole row: sha256 of the canonical JSON object of the named columns. The text is
 * built here with the column order sorted once per column list (a scalar's canonical JSON is its
 * JSON), exactly what `canonicalJson` of the object gives: at 1,000,000 rows per read, sorting the
 * keys of every row again was a fifth of the inspector's time.
 */
export function rowDigest(row: Readonly<Record<string, CellScalar>>, columns: readonly string[]): string {
  return sha256(rowDigestText(row, columns));
}

/** The text `rowDigest` hashes. */
export function rowDigestText(row: Readonly<Record<string, CellScalar>>, columns: readonly string[]): string {
  let text = '{';
  for (const [column, key] of membersOf(columns)) {
    if (text.length > 1) text += ',';
    text += key + canonicalJson(plain(row[column]));
  }
  return `${text}}`;
}

/** Order-independent digest of a row set: sha256 over the sorted per-row digests. */
export function setDigest(rowDigests: readonly string[]): string {
  return sha256([...rowDigests].sort().join('\n'));
}

/**
 * Groups audited inserts into mutations, one insert at a time (an inspector feeds it from a
 * cursor). With real transaction markers a mutation is one marker. Without (an embedded file), writers are
 * serialised, so one mutation's inserts are contiguous in audit order; a new run starts where a
 * natural key repeats within the current run.
 */
export class MutationRecorder {
  readonly #markerKind: TargetAuditTrail['marker_kind'];
  readonly records: { marker: string; rows: number }[] = [];
  readonly #byMarker = new Map<string, { marker: string; rows: number }>();
  #seen = new Set<string>();
  #inserts = 0;

  constructor(markerKind: TargetAuditTrail['marker_kind']) {
    this.#markerKind = markerKind;
  }

  /** Audited inserts seen so far. */
  get inserts(): number {
    return this.#inserts;
  }

  add(insert: AuditedInsert): void {
    this.#inserts += 1;
    if (this.#markerKind === 'transaction') {
      const marker = insert.marker ?? 'unmarked';
      let record = this.#byMarker.get(marker);
      if (!record) {
        record = { marker, rows: 0 };
        this.#byMarker.set(marker, record);
        this.records.push(record);
      }
      record.rows += 1;
      return;
    }
    const current = this.records.at(-1);
    if (!current || this.#seen.has(insert.key)) {
      this.records.push({ marker: `run-${this.records.length + 1}`, rows: 1 });
      this.#seen = new Set([insert.key]);
    } else {
      current.rows += 1;
      this.#seen.add(insert.key);
    }
  }
}

/** The mutation records of a whole list of audited inserts (MutationRecorder over each). */
export function mutationRecords(
  inserts: readonly AuditedInsert[],
  markerKind: TargetAuditTrail['marker_kind'],
): TargetAuditTrail['mutation_records'] {
  const recorder = new MutationRecorder(markerKind);
  for (const insert of inserts) recorder.add(insert);
  return recorder.records;
}

/** Duplicate rows (each row beyond the first of its key) and the duplicated key digests. */
export function duplicatesOf(rowKeys: readonly string[]): { rows: number; keys: string[] } {
  const counts = new Map<string, number>();
  for (const key of rowKeys) counts.set(key, (counts.get(key) ?? 0) + 1);
  let rows = 0;
  const keys: string[] = [];
  for (const [key, count] of counts) {
    if (count > 1) {
      rows += count - 1;
      keys.push(key);
    }
  }
  return { rows, keys: keys.sort() };
}

/**
 * Derives every snapshot field from the value-free trail and the source's count and digest. Used
 * by the inspectors and, on stored evidence, by `recheckCell`, so both compute the same thing.
 */
export function snapshotFromTrail(
  trail: TargetAuditTrail,
  source: { readonly row_count: number; readonly digest: string; readonly batch_rows?: number },
  firstDifference?: TargetFirstDifference | (() => TargetFirstDifference | undefined),
): TargetSnapshot {
  const duplicates = duplicatesOf(trail.target_row_keys);
  const targetDigest = setDigest(trail.target_row_digests);
  const rowCount = trail.target_row_digests.length;
  const parity = rowCount === source.row_count && targetDigest === source.digest;
  return {
    mutations: trail.mutation_records.length,
    duplicate_rows: duplicates.rows,
    row_parity: parity,
    row_count: rowCount,
    source_row_count: source.row_count,
    ...(source.batch_rows !== undefined ? { batch_rows: source.batch_rows } : {}),
    target_digest: targetDigest,
    source_digest: source.digest,
    duplicate_keys: duplicates.keys,
    audit: trail,
    ...(!parity && firstDifference ? differenceField(firstDifference) : {}),
  };
}

function differenceField(difference: TargetFirstDifference | (() => TargetFirstDifference | undefined)): {
  first_difference?: TargetFirstDifference;
} {
  const found = typeof difference === 'function' ? difference() : difference;
  return found ? { first_difference: found } : {};
}

/** Above this many target rows the evidence keeps the trail's counts but not its per-row lists. */
export const TRAIL_ROW_LIMIT = 100_000;

/** The snapshot as stored: a trail over TRAIL_ROW_LIMIT rows loses its row lists (row_lists_omitted). */
export function storedSnapshot(snapshot: TargetSnapshot, limit = TRAIL_ROW_LIMIT): TargetSnapshot {
  const audit = snapshot.audit;
  if (!audit || audit.target_row_digests.length <= limit) return snapshot;
  return {
    ...snapshot,
    audit: {
      ...audit,
      target_row_keys: [],
      target_row_digests: [],
      row_lists_omitted: audit.target_row_digests.length,
    },
  };
}

/** Builds the snapshot from what an inspector read. */
export function snapshotFromReading(reading: TargetReading): TargetSnapshot {
  const trail: TargetAuditTrail = {
    marker_kind: reading.markerKind,
    mutation_records: mutationRecords(reading.inserts, reading.markerKind),
    audited_inserts: reading.inserts.length,
    target_row_keys: reading.target.map((row) => row.key).sort(),
    target_row_digests: reading.target.map((row) => row.row).sort(),
  };
  return storedSnapshot(
    snapshotFromTrail(
      trail,
      {
        row_count: reading.source.length,
        digest: setDigest(reading.source.map((row) => row.row)),
        ...(reading.batchRows !== undefined ? { batch_rows: reading.batchRows } : {}),
      },
      reading.firstDifference,
    ),
  );
}
