import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/contracts/errors.ts';
import { classifyClickHouseError } from './clickhouse-errors.ts';
import { checkTargetTable, partitionLiteral } from './clickhouse-rows.ts';
import type { DescribedTable, TargetShape } from './clickhouse-rows.ts';
import { encodeChunk, encodeValue, encodedColumns } from './clickhouse-values.ts';

const text = (value: unknown) => encodeValue(value, 'c').toString('latin1');

describe('clickhouse value transport (TabSeparated)', () => {
  it('escapes text, keeps big integers exact and BLOB bytes raw', () => {
    expect(text('a\tb\nc\\d\re\0')).toBe('a\\tb\\nc\\\\d\\re\\0');
    expect(text('\\N')).toBe('\\\\N');
    expect(text(null)).toBe('\\N');
    expect(text(9007199254740993n)).toBe('9007199254740993');
    expect(text('18446744073709551615')).toBe('18446744073709551615');
    expect(text(0.1)).toBe('0.1');
    expect(text(new Uint8Array([0, 255, 9, 10, 92]))).toBe('\x00\xff\\t\\n\\\\');
  });

  it('refuses values it cannot carry, naming the column and never the value', () => {
    expect(() => encodeValue({ secret: 1 }, 'payload')).toThrow(
      expect.objectContaining({
        code: ERROR_CODES.DATA_REJECTED,
        message: expect.stringContaining('payload'),
      }),
    );
  });

  it('tags every line with the generation and refuses NULL in a key', () => {
    const rows = [
      ['1', null],
      ['2', 'x'],
    ];
    expect(encodedColumns(['id', 'v'])).toEqual(['id', 'v', '_dpone_op', '_dpone_epoch']);
    expect(encodeChunk(['id', 'v'], rows, "op'1", 7, new Set(['id'])).toString()).toBe(
      "1\t\\N\top'1\t7\n2\tx\top'1\t7\n",
    );
    expect(() => encodeChunk(['id'], [[null]], 'op', 1, new Set(['id']))).toThrow(
      expect.objectContaining({ code: ERROR_CODES.DATA_REJECTED }),
    );
  });
});

describe('clickhouse error causes', () => {
  it.each([
    [
      'Code: 193, e.displayText() = DB::Exception: Wrong password for user dpone',
      ERROR_CODES.AUTHENTICATION_FAILED,
    ],
    ['Code: 516, DB::Exception: default: Authentication failed', ERROR_CODES.AUTHENTICATION_FAILED],
    [
      'Code: 164, e.displayText() = DB::Exception: Cannot execute query in readonly mode',
      ERROR_CODES.PERMISSION_DENIED,
    ],
    ["Code: 81, e.displayText() = DB::Exception: Database x doesn't exist", ERROR_CODES.OBJECT_NOT_FOUND],
    [
      'Code: 27, e.displayText() = DB::Exception: Cannot parse input: "secret-value"',
      ERROR_CODES.DATA_REJECTED,
    ],
  ])('%s → %s, without the server message', (message, code) => {
    const error = classifyClickHouseError(new Error(message), { operationId: 'op' });
    expect(error).toMatchObject({ code, fields: { operationId: 'op' } });
    expect(error?.message).not.toMatch(/secret|dpone|readonly mode|doesn't/);
    expect(error?.message).toMatch(/server code \d+/);
  });

  it('keeps the caller’s retry code for anything else', () => {
    expect(classifyClickHouseError(new Error('Code: 202, Too many simultaneous queries'))).toBeNull();
    expect(classifyClickHouseError(new Error('socket hang up'))).toBeNull();
  });
});

const SHAPE: TargetShape = {
  table: 'db.events',
  columns: ['id', 'day', 'v'],
  naturalKey: ['id'],
  partitionColumn: 'day',
};
const described = (engine: string, extra: [string, string, string][] = []): DescribedTable => ({
  engine,
  partitionKey: 'day',
  columns: new Map(
    [
      ['id', 'String', ''],
      ['day', 'Date', ''],
      ['v', 'Nullable(String)', ''],
      ['_dpone_op', 'String', ''],
      ['_dpone_epoch', 'UInt64', ''],
      ...extra,
    ].map(([name, type, defaultKind]) => [name!, { type: type!, defaultKind: defaultKind! }]),
  ),
});

describe('clickhouse target table checks', () => {
  it('accepts a plain MergeTree with extra DEFAULT columns', () => {
    expect(() =>
      checkTargetTable(described('MergeTree', [['created', 'DateTime', 'DEFAULT']]), SHAPE),
    ).not.toThrow();
  });

  it.each(['ReplacingMergeTree', 'CollapsingMergeTree', 'ReplicatedMergeTree', 'Log'])(
    'refuses %s',
    (engine) => {
      expect(() => checkTargetTable(described(engine), SHAPE)).toThrow(
        expect.objectContaining({
          code: ERROR_CODES.INVALID_INPUT,
          message: expect.stringContaining(engine),
        }),
      );
    },
  );

  it('refuses a computed workload column and a missing one', () => {
    const computed = described('MergeTree');
    (computed.columns as Map<string, { type: string; defaultKind: string }>).set('v', {
      type: 'String',
      defaultKind: 'MATERIALIZED',
    });
    expect(() => checkTargetTable(computed, SHAPE)).toThrow(
      expect.objectContaining({ code: ERROR_CODES.INVALID_INPUT }),
    );
    expect(() => checkTargetTable(described('MergeTree'), { ...SHAPE, columns: ['id', 'day', 'w'] })).toThrow(
      expect.objectContaining({ code: ERROR_CODES.OBJECT_NOT_FOUND }),
    );
  });

  it('writes a numeric partition unquoted and refuses a non-number for it', () => {
    expect(partitionLiteral({ ...SHAPE, partitionType: 'Date' }, '2026-07-18')).toBe("'2026-07-18'");
    expect(partitionLiteral({ ...SHAPE, partitionType: 'UInt32' }, '20260718')).toBe('20260718');
    expect(() => partitionLiteral({ ...SHAPE, partitionType: 'UInt32' }, '1; DROP')).toThrow(
      expect.objectContaining({ code: ERROR_CODES.INVALID_INPUT }),
    );
  });
});
