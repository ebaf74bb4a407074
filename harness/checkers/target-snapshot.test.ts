import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../evidence/canonical-json.ts';
import type { CellScalar, TargetReading } from './target-snapshot.ts';
import { TRAIL_ROW_LIMIT, rowDigest, snapshotFromReading } from './target-snapshot.ts';

const rows = (count: number, prefix = 'r') =>
  Array.from({ length: count }, (_, i) => ({ key: `k${i}`, row: `${prefix}${i}` }));

function reading(target: number, source: number, firstDifference: TargetReading['firstDifference']) {
  return snapshotFromReading({
    target: rows(target),
    source: rows(source),
    inserts: rows(target).map((row) => ({ key: row.key, marker: 'txid:1' })),
    markerKind: 'transaction',
    ...(firstDifference ? { firstDifference } : {}),
  });
}

describe('snapshotFromReading', () => {
  it('asks for the first difference only without parity (it sorts every key of the partition)', () => {
    let asked = 0;
    const difference = () => {
      asked += 1;
      return { key: { id: '7' }, kind: 'missing' as const };
    };
    expect(reading(3, 3, difference)).not.toHaveProperty('first_difference');
    expect(asked).toBe(0);
    expect(reading(2, 3, difference).first_difference).toEqual({ key: { id: '7' }, kind: 'missing' });
    expect(asked).toBe(1);
  });

  it('keeps the row lists up to TRAIL_ROW_LIMIT rows, and only the counts beyond', () => {
    const small = reading(3, 3, undefined);
    expect(small.audit?.target_row_digests).toHaveLength(3);
    expect(small.audit).not.toHaveProperty('row_lists_omitted');
    const large = reading(TRAIL_ROW_LIMIT + 1, TRAIL_ROW_LIMIT + 1, undefined);
    expect(large).toMatchObject({ row_parity: true, mutations: 1, row_count: TRAIL_ROW_LIMIT + 1 });
    expect(large.audit).toMatchObject({
      target_row_keys: [],
      target_row_digests: [],
      row_lists_omitted: TRAIL_ROW_LIMIT + 1,
      audited_inserts: TRAIL_ROW_LIMIT + 1,
    });
  });
});

describe('rowDigest', () => {
  // The definition: sha256 of the canonical JSON object of the named columns (stored trails and
  // `certify verify` rely on it); the inspector builds that text without sorting each row's keys.
  const definition = (row: Readonly<Record<string, CellScalar>>, columns: readonly string[]) => {
    const object: Record<string, string | number | null> = {};
    for (const column of columns) {
      const value = row[column];
      object[column] = value === undefined ? null : typeof value === 'bigint' ? value.toString() : value;
    }
    return `sha256:${createHash('sha256').update(canonicalJson(object)).digest('hex')}`;
  };

  it('equals the canonical JSON definition on every kind of value and column order', () => {
    const columns = ['label', 'id', 'Zeta', 'é', 'amount', 'at', 'missing', 'id'];
    const values: CellScalar[] = [
      null,
      '',
      'a"b\\c',
      'e\u0301',
      '👍🏽',
      'مرحبا',
      0,
      -1.5,
      2 ** 53 + 2,
      2n ** 63n - 1n,
    ];
    for (let i = 0; i < 200; i++) {
      const row: Record<string, CellScalar> = {};
      columns.forEach((column, c) => (row[column] = values[(i * 7 + c * 3) % values.length]!));
      delete row.missing;
      const order = i % 2 === 0 ? columns : [...columns].reverse();
      expect(rowDigest(row, order)).toBe(definition(row, order));
    }
  });
});
