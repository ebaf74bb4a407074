import { createHash, hash } from 'node:crypto';
import type { TargetAuditTrail, TargetFirstDifference, TargetSnapshot } from '../evidence/evidence-types.ts';
import type { CellScalar } from './target-snapshot.ts';
import {
  TRAIL_ROW_LIMIT,
  keyDigestText,
  rowDigestText,
  snapshotFromTrail,
  storedSnapshot,
} from './target-snapshot.ts';

/**
 * Row digests taken one row at a time (issue 37 item 4): an inspector visits each row of a cursor
 * once and keeps 32 bytes per digest, never the rows. `finish` gives exactly what the sorted
 * string lists gave (setDigest, duplicatesOf, the trail's lists): a row digest's text is
 * `sha256:<hex>`, whose string order is the byte order of the raw digest, so sorting the raw
 * bytes sorts the texts.
 */
const DIGEST = 32;
const CHUNK_DIGESTS = 64 * 1024;
/**
 * The first chunk's size: a certification cell's table holds tens of rows, and a 2 MB chunk per
 * list (three or more lists a snapshot, a snapshot or more a cell) was most of the runner's garbage
 * collection in a default suite. Chunks double from here up to CHUNK_DIGESTS.
 */
const FIRST_CHUNK_DIGESTS = 64;
/**
 * Up to this many digests `sorted` compares them directly: the counting pass over 65,536 buckets
 * (two 256 KB tables and a loop over every bucket) costs more than sorting a small list outright.
 */
const DIRECT_SORT_LIMIT = 4096;

/** A growing array of 32-byte digests, in chunks (no copy of the whole while it grows). */
class DigestList {
  #chunks: Buffer[] = [];
  /** Digests in the last chunk. */
  #used = 0;
  #count = 0;

  get count(): number {
    return this.#count;
  }

  push(text: string): void {
    const last = this.#chunks.at(-1);
    if (!last || this.#used * DIGEST === last.length) {
      const size = last ? Math.min(CHUNK_DIGESTS, (last.length / DIGEST) * 2) : FIRST_CHUNK_DIGESTS;
      this.#chunks.push(Buffer.allocUnsafe(size * DIGEST));
      this.#used = 0;
    }
    const chunk = this.#chunks.at(-1)!;
    hash('sha256', text, 'buffer').copy(chunk, this.#used * DIGEST);
    this.#used += 1;
    this.#count += 1;
  }

  /** Every digest in byte order, in one buffer. */
  sorted(): Buffer {
    const all = this.#count <= DIRECT_SORT_LIMIT ? this.#sortedDirectly() : this.#sortedByBuckets();
    this.#chunks = [];
    return all;
  }

  /** Calls `visit` with each digest's chunk and offset, in the order pushed. */
  #each(visit: (chunk: Buffer, offset: number) => void): void {
    let left = this.#count;
    for (const chunk of this.#chunks) {
      const n = Math.min(left, chunk.length / DIGEST);
      for (let i = 0; i < n; i++) visit(chunk, i * DIGEST);
      left -= n;
    }
  }

  /** A small list: the digests as views, sorted by byte comparison, copied out in order. */
  #sortedDirectly(): Buffer {
    const views: Buffer[] = [];
    this.#each((chunk, offset) => views.push(chunk.subarray(offset, offset + DIGEST)));
    views.sort(Buffer.compare);
    return Buffer.concat(views, this.#count * DIGEST);
  }

  /** A counting pass on the first two bytes, then an insertion sort inside each bucket. */
  #sortedByBuckets(): Buffer {
    const count = this.#count;
    const all = Buffer.allocUnsafe(count * DIGEST);
    const starts = new Uint32Array(65_537);
    this.#each((chunk, offset) => (starts[chunk.readUInt16BE(offset) + 1]! += 1));
    for (let b = 1; b < starts.length; b++) starts[b]! += starts[b - 1]!;
    const next = starts.slice(0, 65_536);
    this.#each((chunk, offset) => {
      const bucket = chunk.readUInt16BE(offset);
      chunk.copy(all, next[bucket]! * DIGEST, offset, offset + DIGEST);
      next[bucket]! += 1;
    });
    const scratch = Buffer.allocUnsafe(DIGEST);
    for (let b = 0; b < 65_536; b++) {
      // Insertion sort inside a bucket (a handful of digests each at a million rows).
      for (let i = starts[b]! + 1; i < starts[b + 1]!; i++) {
        all.copy(scratch, 0, i * DIGEST, (i + 1) * DIGEST);
        let j = i - 1;
        while (j >= starts[b]! && all.compare(scratch, 0, DIGEST, j * DIGEST, (j + 1) * DIGEST) > 0) {
          all.copy(all, (j + 1) * DIGEST, j * DIGEST, (j + 1) * DIGEST);
          j -= 1;
        }
        scratch.copy(all, (j + 1) * DIGEST);
      }
    }
    return all;
  }
}

const text = (sorted: Buffer, i: number) => `sha256:${sorted.toString('hex', i * DIGEST, (i + 1) * DIGEST)}`;

/** setDigest of the sorted texts, hashed as it goes (the joined text is never built). */
function setDigestOf(sorted: Buffer): string {
  const digest = createHash('sha256');
  const count = sorted.length / DIGEST;
  for (let i = 0; i < count; i++) digest.update(i === 0 ? text(sorted, i) : `\n${text(sorted, i)}`);
  return `sha256:${digest.digest('hex')}`;
}

/** A row set reduced to what a snapshot stores about it. */
export interface RowSetSummary {
  readonly rows: number;
  /** setDigest of the row digests. */
  readonly digest: string;
}

/** The source side (or any side whose rows only count towards parity): count and set digest. */
export class RowSetDigest {
  readonly #columns: readonly string[];
  readonly #rows = new DigestList();

  constructor(columns: readonly string[]) {
    this.#columns = columns;
  }

  add(row: Readonly<Record<string, CellScalar>>): void {
    this.#rows.push(rowDigestText(row, this.#columns));
  }

  finish(): RowSetSummary {
    return { rows: this.#rows.count, digest: setDigestOf(this.#rows.sorted()) };
  }
}

/** The target side: count and set digest, duplicates by natural key, and the trail's lists when small. */
export interface TargetSetSummary extends RowSetSummary {
  readonly duplicates: { readonly rows: number; readonly keys: string[] };
  /** The sorted digest texts, only up to `limit` rows (storedSnapshot drops them beyond). */
  readonly lists?: { readonly keys: string[]; readonly rows: string[] };
}

export class TargetSetDigest {
  readonly #columns: readonly string[];
  readonly #naturalKey: readonly string[];
  readonly #rows = new DigestList();
  readonly #keys = new DigestList();

  constructor(columns: readonly string[], naturalKey: readonly string[]) {
    this.#columns = columns;
    this.#naturalKey = naturalKey;
  }

  add(row: Readonly<Record<string, CellScalar>>): void {
    this.#rows.push(rowDigestText(row, this.#columns));
    this.#keys.push(keyDigestText(row, this.#naturalKey));
  }

  finish(limit = TRAIL_ROW_LIMIT): TargetSetSummary {
    const rows = this.#rows.sorted();
    const keys = this.#keys.sorted();
    const count = rows.length / DIGEST;
    const duplicates = { rows: 0, keys: [] as string[] };
    for (let i = 1; i < count; i++) {
      if (keys.compare(keys, (i - 1) * DIGEST, i * DIGEST, i * DIGEST, (i + 1) * DIGEST) !== 0) continue;
      duplicates.rows += 1;
      const key = text(keys, i);
      if (duplicates.keys.at(-1) !== key) duplicates.keys.push(key);
    }
    const all = (sorted: Buffer) => Array.from({ length: count }, (_, i) => text(sorted, i));
    return {
      rows: count,
      digest: setDigestOf(rows),
      duplicates,
      ...(count <= limit ? { lists: { keys: all(keys), rows: all(rows) } } : {}),
    };
  }
}

/** What an inspector gathered in one pass, reduced; `snapshotFromSummaries` builds the snapshot. */
export interface SummaryReading {
  readonly target: TargetSetSummary;
  /** The rows the target must hold (the source partition and what a load keeps). */
  readonly expected: RowSetSummary;
  /** The audit's mutation records, in commit order, and how many audited inserts they hold. */
  readonly mutations: {
    readonly records: TargetAuditTrail['mutation_records'];
    readonly inserts: number;
  };
  readonly markerKind: TargetAuditTrail['marker_kind'];
  /** Source rows of the loaded partition (one whole mutation's size). */
  readonly batchRows?: number;
  /** Asked only without parity (it reads the rows again). */
  readonly firstDifference?: () => Promise<TargetFirstDifference | undefined>;
}

/**
 * The stored snapshot from summaries: the same fields `snapshotFromReading` derives from whole
 * row lists (snapshotFromTrail on the same trail, then storedSnapshot), so `certify verify`
 * recomputes the same thing from a stored trail.
 */
export async function snapshotFromSummaries(reading: SummaryReading): Promise<TargetSnapshot> {
  const { target, expected } = reading;
  const lists = target.lists ?? { keys: [], rows: [] };
  const trail: TargetAuditTrail = {
    marker_kind: reading.markerKind,
    mutation_records: reading.mutations.records,
    audited_inserts: reading.mutations.inserts,
    target_row_keys: lists.keys,
    target_row_digests: lists.rows,
  };
  const parity = target.rows === expected.rows && target.digest === expected.digest;
  const difference = !parity && reading.firstDifference ? await reading.firstDifference() : undefined;
  const source = {
    row_count: expected.rows,
    digest: expected.digest,
    ...(reading.batchRows !== undefined ? { batch_rows: reading.batchRows } : {}),
  };
  if (target.lists) return storedSnapshot(snapshotFromTrail(trail, source, difference));
  // Beyond the limit: the fields the lists would give, from the summary; the lists left out.
  const snapshot: TargetSnapshot = {
    mutations: trail.mutation_records.length,
    duplicate_rows: target.duplicates.rows,
    row_parity: parity,
    row_count: target.rows,
    source_row_count: expected.rows,
    ...(reading.batchRows !== undefined ? { batch_rows: reading.batchRows } : {}),
    target_digest: target.digest,
    source_digest: expected.digest,
    duplicate_keys: target.duplicates.keys,
    audit: { ...trail, row_lists_omitted: target.rows },
    ...(difference ? { first_difference: difference } : {}),
  };
  return snapshot;
}
