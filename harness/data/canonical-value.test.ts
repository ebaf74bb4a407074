import { describe, expect, it } from 'vitest';
import { canonicalValue } from './canonical-value.ts';
import { BIG_2_53_PLUS_1, BIG_INT64_MAX } from './cell-numbers.ts';
import { DATASET_COLUMNS, expectedTarget, generateDataset, lateRows, targetIdBase } from './dataset.ts';

describe('canonicalValue: one form per type, whatever engine read it', () => {
  it('integers are exact beyond 2^53 whether the driver gave a bigint, a number or text', () => {
    expect(canonicalValue('integer', 9007199254740993n)).toBe('9007199254740993');
    expect(canonicalValue('integer', '9007199254740993')).toBe('9007199254740993');
    expect(canonicalValue('integer', 42)).toBe('42');
    expect(canonicalValue('integer', '-0')).toBe('0');
    expect(canonicalValue('integer', '+007')).toBe('7');
    // A number that lost precision is not silently accepted, nor is a fraction.
    expect(canonicalValue('integer', 2 ** 53 + 2)).toMatch(/^!integer:/);
    expect(canonicalValue('integer', '1.5')).toBe('!integer:1.5');
  });

  it('doubles compare by the IEEE value, not by the text an engine chose', () => {
    const value = 100_000 / 7;
    expect(canonicalValue('double', value)).toBe(String(value));
    expect(canonicalValue('double', '14285.714285714286')).toBe('14285.714285714286');
    expect(canonicalValue('double', '1e+20')).toBe(canonicalValue('double', '100000000000000000000'));
    // 15 significant digits (extra_float_digits=0) are another double: parity must see it.
    expect(canonicalValue('double', '14285.7142857143')).not.toBe(canonicalValue('double', value));
    expect(canonicalValue('double', 'NaN')).toBe('!double:NaN');
  });

  it('decimals drop trailing zeros only', () => {
    expect(canonicalValue('decimal', '12.50')).toBe('12.5');
    expect(canonicalValue('decimal', '12.5')).toBe('12.5');
    expect(canonicalValue('decimal', '-0.000')).toBe('0');
    expect(canonicalValue('decimal', '0012.000')).toBe('12');
    expect(canonicalValue('decimal', '123456789012345678901234.000001')).toBe(
      '123456789012345678901234.000001',
    );
    expect(canonicalValue('decimal', '1,5')).toBe('!decimal:1,5');
  });

  it('dates are calendar days; a moved day differs', () => {
    expect(canonicalValue('date', '2026-07-05')).toBe('2026-07-05');
    expect(canonicalValue('date', '2026-05-07')).not.toBe('2026-07-05');
    expect(canonicalValue('date', '2026-02-30')).toBe('!date:2026-02-30');
    // Checked days are remembered: asking again (valid or not, among thousands of others) answers the same.
    for (let day = 0; day < 5000; day++) canonicalValue('date', `2026-01-${String(day).padStart(2, '0')}`);
    expect(canonicalValue('date', '2026-02-30')).toBe('!date:2026-02-30');
    expect(canonicalValue('date', '2026-07-05')).toBe('2026-07-05');
    expect(canonicalValue('date', '2026-1-05')).toBe('!date:2026-1-05');
  });

  it('timestamps are UTC instants to the microsecond, whatever zone the text was in', () => {
    const utc = '2026-07-05T10:00:00.123456Z';
    expect(canonicalValue('timestamp', '2026-07-05 12:00:00.123456+02')).toBe(utc);
    expect(canonicalValue('timestamp', '2026-07-05T12:00:00.123456+02:00')).toBe(utc);
    expect(canonicalValue('timestamp', '2026-07-05 07:30:00.123456-02:30')).toBe(utc);
    expect(canonicalValue('timestamp', '2026-07-05T10:00:00.123456')).toBe(utc);
    expect(canonicalValue('timestamp', '2026-07-05 10:00:00')).toBe('2026-07-05T10:00:00.000000Z');
    expect(canonicalValue('timestamp', '2026-07-05 10:00:00.1234567Z')).toBe(utc.replace('456', '456'));
  });

  it('text is never normalised, and NULL is not the empty string', () => {
    const nfc = 'caf\u00e9';
    const nfd = 'cafe\u0301';
    expect(canonicalValue('text', nfc)).not.toBe(canonicalValue('text', nfd));
    expect(canonicalValue('text', '')).toBe('');
    expect(canonicalValue('text', null)).toBeNull();
    expect(canonicalValue('text', 5)).toBe('!text:5');
  });
});

describe('timestamps through the per-second memo', () => {
  // The form as it was computed before the memo (a Date per value): the memo must give exactly this,
  // on a first and on a repeated read, at every field boundary and for the generator's instants.
  const TIMESTAMP =
    /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;
  function reference(raw: string): string {
    const match = TIMESTAMP.exec(raw.trim());
    if (!match) return `!timestamp:${raw}`;
    const [, y, mo, d, h, mi, s, fraction = '', zone = 'Z'] = match;
    const micros = BigInt((fraction + '000000').slice(0, 6));
    const base = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
    let offsetMinutes = 0;
    if (zone.toUpperCase() !== 'Z') {
      const digits = zone.replace(':', '');
      offsetMinutes =
        (Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5) || '0')) * (zone[0] === '-' ? -1 : 1);
    }
    const instant = new Date(base - offsetMinutes * 60_000);
    if (Number.isNaN(instant.getTime())) return `!timestamp:${raw}`;
    return `${instant.toISOString().slice(0, 19)}.${micros.toString().padStart(6, '0')}Z`;
  }
  const pad = (n: number, width: number) => String(n).padStart(width, '0');

  it('gives what a Date per value gave, at every field boundary, read once and again', () => {
    const texts: string[] = [];
    for (const y of [0, 1, 99, 100, 1900, 1970, 2000, 2023, 2024, 2100, 9999])
      for (const mo of [0, 1, 2, 4, 12, 13])
        for (const d of [0, 1, 28, 29, 30, 31, 32])
          for (const time of [
            '00:00:00',
            '23:59:59.999999',
            '24:00:00.1',
            '12:60:00.1234567',
            '12:00:60.000001',
          ])
            // One wall time in every zone: the memo must not answer one zone with another's instant.
            for (const zone of ['Z', 'z', '+05:30', '+0530', '-08:00', '-02', ''])
              texts.push(`${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)}T${time}${zone}`);
    texts.push('2026-07-05 10:00:00.5', ' 2026-07-05T10:00:00Z ', '2026-07-05T10:0a:00Z', '2026-07-05');
    for (const pass of [1, 2])
      for (const text of texts)
        expect(canonicalValue('timestamp', text), `${text} (read ${pass})`).toBe(reference(text));
  });

  it("gives what a Date per value gave for the generator's instants", () => {
    const rows = [...generateDataset({ seed: 7, rows: 600, strategy: 'append' }).source];
    const texts = rows.map((row) => row.at).filter((at): at is string => typeof at === 'string');
    expect(new Set(texts.map((text) => text.slice(-6))).size).toBeGreaterThan(2);
    for (const text of texts) expect(canonicalValue('timestamp', text)).toBe(reference(text));
  });
});

describe('the dataset', () => {
  it('is the same for the same seed, and rows of another partition are in the source', () => {
    const a = generateDataset({ rows: 20, strategy: 'append', seed: 42 });
    expect(generateDataset({ rows: 20, strategy: 'append', seed: 42 })).toEqual(a);
    expect([...a.source].filter((r) => r.day === a.partition.value)).toHaveLength(20);
    expect(a.source.length).toBeGreaterThan(20);
    expect(a.target).toEqual([]);
  });

  it('makes its source rows as they are iterated: the same rows each time, as many as its length', () => {
    const d = generateDataset({ rows: 50, strategy: 'append', seed: 7 });
    const first = [...d.source];
    expect(first).toHaveLength(d.source.length);
    expect([...d.source]).toEqual(first);
    expect(new Set(first.map((r) => r.id)).size).toBe(first.length);
    expect(first).not.toEqual([...generateDataset({ rows: 50, strategy: 'append', seed: 8 }).source]);
  });

  it('replace-partition seeds target rows in the partition and a neighbouring one', () => {
    const d = generateDataset({ rows: 0, strategy: 'replace-partition', seed: 1 });
    const inPartition = d.target.filter((r) => r.day === d.partition.value);
    expect(inPartition.length).toBeGreaterThan(0);
    expect(d.target.length).toBeGreaterThan(inPartition.length);
    const late = lateRows(d, 2, 1);
    const expected = expectedTarget(d.target, late, d.partition, 'replace-partition');
    expect(expected.filter((r) => r.day === d.partition.value)).toEqual(late);
    expect(expectedTarget(d.target, late, d.partition, 'append')).toHaveLength(d.target.length + 2);
  });

  it('late rows follow the largest source id of a 1,000,000-row partition', () => {
    const d = generateDataset({ rows: 0, strategy: 'append', seed: 1 });
    const source = Array.from({ length: 1_000_000 }, (_, i) => ({
      ...[...d.source][0]!,
      id: String(1_000_000 - i),
    }));
    const late = lateRows({ ...d, source }, 2, 1);
    expect(late.map((r) => Number(r.id))).toEqual([1_000_001, 1_000_002]);
  });

  it('target-only rows never share an id with a source row, however large the partition', () => {
    expect(targetIdBase(20)).toBe(900_000);
    expect(targetIdBase(10_000)).toBe(900_000);
    // 1,000,000 source rows (and the neighbour's 5) would reach 900,001: the base moves above them.
    expect(targetIdBase(1_000_000)).toBe(10_000_000);
    for (const rows of [899_994, 899_995, 1_000_000, 5_000_000])
      expect(targetIdBase(rows)).toBeGreaterThan(rows + 5);
    const d = generateDataset({ rows: 20, strategy: 'replace-partition', seed: 1 });
    expect(d.target.map((r) => r.id)).toEqual(['900001', '900002', '900003', '900004', '900005']);
  });

  it('holds integers a JS number rounds and decimals a double rounds, in every partition of 7 rows', () => {
    expect(DATASET_COLUMNS).toContainEqual({ name: 'big', type: 'integer' });
    expect(DATASET_COLUMNS).toContainEqual({ name: 'price', type: 'decimal' });
    const d = generateDataset({ rows: 7, strategy: 'append', seed: 3 });
    const rows = [...d.source].filter((r) => r.day === d.partition.value);
    const bigs = rows.map((r) => r.big ?? null);
    const beyond = bigs.filter((b): b is string => b !== null && !Number.isSafeInteger(Number(b)));
    expect(beyond.some((b) => b.startsWith('-'))).toBe(true);
    expect(beyond.some((b) => BigInt(b) > 2n ** 62n && BigInt(b) < BIG_INT64_MAX)).toBe(true);
    expect(bigs).toContain(BIG_2_53_PLUS_1.toString());
    expect(bigs).toContain(BIG_INT64_MAX.toString());
    expect(bigs).toContain(null);
    // Every value is canonical already, and a round trip through a JS number changes each one.
    for (const big of beyond) {
      expect(canonicalValue('integer', big)).toBe(big);
      expect(canonicalValue('integer', Number(big))).not.toBe(big);
    }
    const prices = rows.map((r) => r.price ?? null).filter((p): p is string => p !== null);
    expect(prices.length).toBeGreaterThan(0);
    for (const price of prices) {
      expect(canonicalValue('decimal', price)).toBe(price);
      expect(price).toMatch(/^-?\d{1,12}(\.\d{1,6})?$/);
    }
    expect(prices.some((p) => canonicalValue('decimal', String(Number(p))) !== p)).toBe(true);
    expect(rows.map((r) => r.price ?? null)).toContain(null);
  });
});
