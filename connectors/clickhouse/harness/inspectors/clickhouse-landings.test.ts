import { describe, expect, it } from 'vitest';
import type { PartRecord } from './clickhouse-landings.ts';
import { landings, parsePartName } from './clickhouse-landings.ts';

const part = (name: string, rows: number, active = true): PartRecord => ({
  ...parsePartName(name, rows)!,
  active,
});

describe('clickhouse landings (mutations from the server’s part records)', () => {
  it('parses part names with and without a mutation version, and refuses others', () => {
    expect(parsePartName('abc_4_4_1', 3)).toEqual({
      partitionId: 'abc',
      minBlock: 4,
      maxBlock: 4,
      rows: 3,
      active: true,
    });
    expect(parsePartName('abc_4_4_1_9', 3)).toMatchObject({ minBlock: 4, maxBlock: 4 });
    expect(parsePartName('tmp_insert_x', 1)).toBeNull();
  });

  it('one landing seen by both records counts once, with the logged row count', () => {
    expect(landings([part('p_5_5_1', 3)], [part('p_5_5_1_7', 3), part('p_5_5_1', 3, false)], 2)).toEqual([
      { marker: 'part:p_5', rows: 3 },
    ]);
  });

  it('a landing lost from part_log (server killed) still counts from system.parts', () => {
    expect(landings([], [part('p_5_5_1', 3)], 2)).toEqual([{ marker: 'part:p_5', rows: 3 }]);
  });

  it('parts at or below the baseline, merges and mutations are not landings', () => {
    const parts = [part('p_1_1_0', 9, false), part('p_1_2_1', 10), part('p_2_2_0', 1, false)];
    expect(landings([part('p_1_1_0', 9), part('p_2_2_0', 1)], parts, 2)).toEqual([]);
  });

  it('two landings merged into one part: both counted when either record names them', () => {
    const merged = [part('p_5_6_2', 6), part('p_5_5_1', 3, false), part('p_6_6_1', 3, false)];
    expect(landings([], merged, 2).map((l) => l.marker)).toEqual(['part:p_5', 'part:p_6']);
  });

  it('a merged part beyond the baseline whose sources left no record still counts as a landing', () => {
    expect(landings([], [part('p_5_6_2', 6)], 2)).toEqual([{ marker: 'part:p_5-6', rows: 6 }]);
  });
});
