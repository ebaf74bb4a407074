import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/contracts/errors.ts';
import { enumNames, valueRule } from './clickhouse-value-rules.ts';
import { encodeChunk, keyFingerprint } from './clickhouse-values.ts';

const ok = (type: string, ...values: unknown[]) => values.map((v) => valueRule(type)?.(v) ?? null);
const broken = (type: string, value: unknown) => valueRule(type)?.(value) ?? null;

/** Issue 29 row 2: every value 18.16 would store changed is refused; the edges still pass. */
describe('clickhouse value rules', () => {
  it('integers: exact bounds pass, one beyond is refused (the server would wrap it)', () => {
    expect(ok('Int8', '127', '-128', 127, 0n)).toEqual([null, null, null, null]);
    expect(broken('Int8', '300')).toMatch(/Int8 takes -128\.\.127/);
    expect(broken('Int8', 128)).not.toBeNull();
    expect(ok('Int32', '2147483647', '-2147483648')).toEqual([null, null]);
    expect(broken('Int32', '3000000000')).not.toBeNull();
    expect(ok('UInt64', '18446744073709551615', 18446744073709551615n)).toEqual([null, null]);
    expect(broken('UInt64', '18446744073709551616')).not.toBeNull();
    expect(broken('UInt8', '-1')).not.toBeNull();
    expect(ok('Int64', '-9223372036854775808')).toEqual([null]);
    expect(broken('Int64', '9223372036854775808')).not.toBeNull();
    expect(broken('Int16', '1.5')).toMatch(/whole numbers/);
    expect(broken('Int16', 1.5)).toMatch(/whole numbers/);
    expect(broken('Int64', 2 ** 60)).toMatch(/whole numbers/); // an unsafe JS number is no exact integer
  });

  it('Date: real calendar dates in range; no rollover, no other format', () => {
    expect(ok('Date', '2026-02-28', '2024-02-29', '1970-01-01', '2105-12-31')).toEqual([
      null,
      null,
      null,
      null,
    ]);
    for (const bad of [
      '2026-02-30',
      '2025-02-29',
      '2026-13-01',
      '18/07/2026',
      '1969-12-31',
      '2106-01-01',
      20000,
    ])
      expect(broken('Date', bad)).not.toBeNull();
  });

  it("DateTime and DateTime('tz'): times of day up to 23:59:59 only, one format", () => {
    expect(ok('DateTime', '2026-07-18 23:59:59', '1970-01-02 00:00:00')).toEqual([null, null]);
    for (const bad of [
      '2026-07-18 25:61:61',
      '2026-07-18 24:00:00',
      '2026-07-18T10:00:00',
      '2026-02-30 10:00:00',
    ])
      expect(broken('DateTime', bad)).not.toBeNull();
    expect(broken("DateTime('UTC')", '2026-07-18 10:00:60')).not.toBeNull();
  });

  it('Enum8/Enum16: only the names of the set (quotes unescaped)', () => {
    const type = "Enum8('a' = 1, 'it\\'s' = 2, '' = 3)";
    expect(enumNames(type)).toEqual(['a', "it's", '']);
    expect(ok(type, 'a', "it's", '')).toEqual([null, null, null]);
    expect(broken(type, 'c')).toMatch(/one of its 3 names/);
    expect(broken(type, 1)).not.toBeNull();
  });

  it('FixedString(N): exactly N bytes, counted in UTF-8', () => {
    expect(ok('FixedString(2)', 'ab', new Uint8Array([0, 1]))).toEqual([null, null]);
    expect(broken('FixedString(2)', 'abc')).toMatch(/exactly 2 bytes/);
    expect(broken('FixedString(2)', 'a')).not.toBeNull();
    expect(broken('FixedString(2)', 'é')).toBeNull(); // two bytes
  });

  it('NULL only into Nullable; LowCardinality follows its inner type; other types are the server’s', () => {
    expect(broken('String', null)).toMatch(/not Nullable/);
    expect(broken('Nullable(Int8)', null)).toBeNull();
    expect(broken('Nullable(Int8)', '300')).not.toBeNull();
    expect(broken('LowCardinality(Nullable(String))', null)).toBeNull();
    expect(broken('LowCardinality(String)', null)).not.toBeNull();
    expect(broken('Nullable(Float64)', 1.5)).toBeNull();
    expect(broken('Decimal(18, 6)', 'x')).toBeNull();
  });

  it('a refused value: DATA_REJECTED naming column, row, natural key fingerprint and rule, never the value', () => {
    const rules = [valueRule('String'), valueRule('Int8')];
    const chunk = [
      ['k1', '1'],
      ['secret-key-42', '300'],
    ];
    let error: unknown;
    try {
      encodeChunk(['id', 'small'], chunk, 'op', 1, new Set(['id']), {
        rules,
        naturalKey: ['id'],
        rowsBefore: 10,
      });
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ code: ERROR_CODES.DATA_REJECTED, exitCode: 33 });
    const message = (error as Error).message;
    expect(message).toContain('column small, row 12 of the partition');
    expect(message).toContain(`natural key id = ${keyFingerprint(['secret-key-42'])}`);
    expect(message).toContain('Int8 takes -128..127');
    expect(message).not.toContain('300');
    expect(message).not.toContain('secret-key-42');
  });
});
