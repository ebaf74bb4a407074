import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/contracts/errors.ts';
import type { Row } from '../../src/ports/connector.ts';
import { rowStreamOf } from '../../src/ports/row-stream.ts';
import { CREATE, INTENT, liveClickHouse, unverified } from './fixtures/clickhouse-live.ts';

/**
 * Issue 29 rows 2–4 on a real server: values 18.16 would store changed are refused with
 * DATA_REJECTED (33) naming the column and the rule, nothing attached; the edge values of each type
 * land exactly; LowCardinality works on 18.16 (its session setting); a value the server itself
 * refuses is permanent, naming the column; a target with a materialized view is refused.
 */
const live = liveClickHouse('exact');
const COLUMNS = ['id', 'day', 'i8', 'i32', 'u64', 'd', 'dt', 'e', 'fs', 'lc', 'price'];
const FENCE = { operationId: 'op-x', epoch: 1, intentDigest: INTENT, holder: 'h1' };

async function typedTable(db: string): Promise<void> {
  await live
    .server()
    .exec(
      `CREATE TABLE ${db}.events (id String, day Date, i8 Int8, i32 Nullable(Int32), u64 UInt64, d Date, ` +
        "dt DateTime, e Enum8('red' = 1, 'green' = 2), fs FixedString(2), lc LowCardinality(String), " +
        'price Decimal(9, 2), _dpone_op String, _dpone_epoch UInt64) ENGINE = MergeTree PARTITION BY day ORDER BY id',
      { allow_experimental_low_cardinality_type: 1 },
    );
}

const EDGE: Row = [
  '1',
  '2026-07-18',
  '-128',
  null,
  '18446744073709551615',
  '2024-02-29',
  '2026-07-18 23:59:59',
  'green',
  'é',
  'low',
  '1234567.89',
];

async function load(db: string, rows: readonly Row[]) {
  await using target = await live.open(db, undefined, { columns: COLUMNS, partitionColumn: 'day' });
  await target.prepareFence(FENCE, CREATE);
  return target
    .mutate({
      fence: FENCE,
      strategy: 'append',
      partitionColumn: 'day',
      partitionValue: '2026-07-18',
      rows: rowStreamOf(COLUMNS, rows),
    })
    .then(
      (receipt) => ({ receipt, error: null }),
      (error: { code?: string; message?: string; fields?: { field?: string } }) => ({ receipt: null, error }),
    );
}

const CASES: readonly (readonly [string, number, unknown, RegExp])[] = [
  ['Int8 300 (would be 44)', 2, '300', /Int8 takes -128\.\.127/],
  ['Int32 3000000000 (would wrap)', 3, '3000000000', /Int32 takes/],
  ['UInt64 2^64 (would be 0)', 4, '18446744073709551616', /UInt64 takes/],
  ['Date 2026-02-30 (would be 2026-03-02)', 5, '2026-02-30', /real calendar date/],
  ['DateTime 25:61:61 (would roll over)', 6, '2026-07-18 25:61:61', /time of day/],
  ['Date 18/07/2026 (would be 0000-00-00)', 5, '18/07/2026', /YYYY-MM-DD/],
  ['Enum8 outside the set', 7, 'blue', /one of its 2 names/],
  ['FixedString(2) too long', 8, 'abc', /exactly 2 bytes/],
  ['NULL into a non-Nullable column (would be 0)', 2, null, /not Nullable/],
];

describe.skipIf(unverified)('clickhouse exact values or a refusal (live)', () => {
  it('the edge values land exactly, LowCardinality included (18.16 needs its setting)', async () => {
    const db = await live.freshDb();
    await typedTable(db);
    const { error } = await load(db, [EDGE]);
    expect(error).toBeNull();
    const got = await live
      .server()
      .exec(`SELECT i8, i32, u64, d, dt, e, hex(fs), lc, price FROM ${db}.events FORMAT TabSeparated`);
    expect(got.trim()).toBe(
      [
        '-128',
        '\\N',
        '18446744073709551615',
        '2024-02-29',
        '2026-07-18 23:59:59',
        'green',
        'C3A9',
        'low',
        '1234567.89',
      ].join('\t'),
    );
  });

  for (const [name, index, value, rule] of CASES) {
    it(`${name}: DATA_REJECTED naming the column and the rule, never the value; nothing attached`, async () => {
      const db = await live.freshDb();
      await typedTable(db);
      const row = [...EDGE];
      row[index] = value as Row[number];
      const { error } = await load(db, [EDGE.map((v, i) => (i === 0 ? '0' : v)), row]);
      expect(error).toMatchObject({ code: ERROR_CODES.DATA_REJECTED });
      expect(error!.message).toContain(`column ${COLUMNS[index]}, row 2 of the partition`);
      expect(error!.message).toMatch(rule);
      if (typeof value === 'string') expect(error!.message).not.toContain(value);
      expect(await live.count(db)).toBe(0);
    });
  }

  it('a value only the server refuses (Decimal text): permanent DATA_REJECTED naming the column', async () => {
    const db = await live.freshDb();
    await typedTable(db);
    const row = [...EDGE];
    row[10] = 'not-a-number';
    const { error } = await load(db, [row]);
    expect(error).toMatchObject({ code: ERROR_CODES.DATA_REJECTED, fields: { field: 'data.columns.price' } });
    expect(error!.message).toMatch(/in column price \(server code \d+ [A-Z_]+\)/);
    expect(error!.message).not.toContain('not-a-number');
  });

  it('a target with a materialized view: refused with one line naming it, nothing written', async () => {
    const db = await live.freshDb();
    await typedTable(db);
    await live
      .server()
      .exec(
        `CREATE MATERIALIZED VIEW ${db}.totals ENGINE = MergeTree ORDER BY id AS SELECT id, i8 FROM ${db}.events`,
      );
    const opened = live.open(db, undefined, { columns: COLUMNS, partitionColumn: 'day' });
    await expect(opened).rejects.toMatchObject({
      code: ERROR_CODES.INVALID_INPUT,
      message: expect.stringContaining('has dependants (totals: materialized views)'),
    });
  });
});
