import { describe, expect, it } from 'vitest';
import { RowSetDigest, TargetSetDigest, snapshotFromSummaries } from './digest-stream.ts';
import type { AuditedInsert, CellScalar } from './target-snapshot.ts';
import {
  MutationRecorder,
  keyDigest,
  rowDigest,
  setDigest,
  snapshotFromReading,
  storedSnapshot,
} from './target-snapshot.ts';

const COLUMNS = ['id', 'label', 'amount'];
const KEY = ['id'];

type Row = Record<string, CellScalar>;

/** Seeded rows with repeated keys (duplicates) and repeated whole rows. */
function rowsOf(count: number, seed: number): Row[] {
  let state = seed;
  const next = () => (state = (state * 1_103_515_245 + 12_345) % 2 ** 31);
  return Array.from({ length: count }, () => {
    const id = next() % Math.max(1, Math.floor(count * 0.8));
    return { id: String(id), label: next() % 3 === 0 ? null : `l${next() % 5}`, amount: next() % 4 };
  });
}

/** The whole-list path the inspectors used before: every row held, digests as sorted strings. */
function wholeList(target: Row[], expected: Row[], inserts: AuditedInsert[]) {
  const digests = (row: Row) => ({ key: keyDigest(row, KEY), row: rowDigest(row, COLUMNS) });
  return snapshotFromReading({
    target: target.map(digests),
    source: expected.map(digests),
    inserts,
    markerKind: 'serialized-runs',
    batchRows: expected.length,
  });
}

async function streamed(target: Row[], expected: Row[], inserts: AuditedInsert[], limit?: number) {
  const targetSet = new TargetSetDigest(COLUMNS, KEY);
  for (const row of target) targetSet.add(row);
  const expectedSet = new RowSetDigest(COLUMNS);
  for (const row of expected) expectedSet.add(row);
  const mutations = new MutationRecorder('serialized-runs');
  for (const insert of inserts) mutations.add(insert);
  return snapshotFromSummaries({
    target: targetSet.finish(limit),
    expected: expectedSet.finish(),
    mutations,
    markerKind: 'serialized-runs',
    batchRows: expected.length,
  });
}

describe('streamed digests', () => {
  it('give the snapshot the whole row lists gave: parity, duplicates, digests, trail', async () => {
    for (const [count, seed] of [
      [0, 1],
      [1, 2],
      [7, 3],
      [64, 6],
      [65, 7],
      [300, 4],
      // Either side of the direct sort's limit (4096), the larger one through the bucket sort.
      [4_096, 8],
      [4_097, 10],
      [5_000, 5],
    ] as const) {
      const target = rowsOf(count, seed);
      const inserts = target.map((row) => ({ key: String(row.id), marker: null }));
      for (const expected of [[...target].reverse(), rowsOf(count, seed + 100)]) {
        const want = wholeList(target, expected, inserts);
        const got = await streamed(target, expected, inserts);
        expect(got).toEqual(want);
      }
    }
  });

  it('beyond the limit keep the counts, duplicates and digests, not the lists', async () => {
    const target = rowsOf(400, 9);
    const inserts = target.map((row) => ({ key: String(row.id), marker: null }));
    const want = storedSnapshot(wholeList(target, target, inserts), 100);
    expect(want.audit?.row_lists_omitted).toBe(400);
    expect(want.duplicate_rows).toBeGreaterThan(0);
    expect(await streamed(target, target, inserts, 100)).toEqual(want);
  });

  it('hash the sorted digest texts as setDigest does, across many byte buckets', () => {
    const rows = rowsOf(20_000, 11);
    const set = new RowSetDigest(COLUMNS);
    for (const row of rows) set.add(row);
    expect(set.finish()).toEqual({
      rows: rows.length,
      digest: setDigest(rows.map((row) => rowDigest(row, COLUMNS))),
    });
  });

  it('ask for the first difference only without parity', async () => {
    const target = rowsOf(10, 12);
    let asked = 0;
    const difference = async () => {
      asked += 1;
      return { key: { id: '1' }, kind: 'missing' as const };
    };
    const reading = async (expected: Row[]) => {
      const targetSet = new TargetSetDigest(COLUMNS, KEY);
      for (const row of target) targetSet.add(row);
      const expectedSet = new RowSetDigest(COLUMNS);
      for (const row of expected) expectedSet.add(row);
      return snapshotFromSummaries({
        target: targetSet.finish(),
        expected: expectedSet.finish(),
        mutations: new MutationRecorder('transaction'),
        markerKind: 'transaction',
        firstDifference: difference,
      });
    };
    expect(await reading(target)).not.toHaveProperty('first_difference');
    expect(asked).toBe(0);
    expect((await reading(target.slice(1))).first_difference).toEqual({ key: { id: '1' }, kind: 'missing' });
    expect(asked).toBe(1);
  });
});
