import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/contracts/errors.ts';
import type { MutationRequest } from '../../src/ports/connector.ts';
import { collectRows, rowStreamOf, rowsFromObjects } from '../../src/ports/row-stream.ts';
import { ClickHouseSource } from './clickhouse-source.ts';
import { CREATE, INTENT, liveClickHouse, unverified } from './fixtures/clickhouse-live.ts';

/**
 * Issue 12 rows 4 and 8: values reach typed ClickHouse columns exactly (integers beyond 2^53,
 * Decimal, DateTime, Date, BLOB bytes), DEFAULT expressions of columns the workload does not carry
 * are applied, and a value the server cannot take is DATA_REJECTED with nothing attached.
 */
const live = liveClickHouse('vals');
const COLUMNS = ['id', 'day', 'big', 'ubig', 'price', 'at', 'blob', 'note'];

async function typedTable(db: string, partitionType = 'Date'): Promise<void> {
  await live
    .server()
    .exec(
      `CREATE TABLE ${db}.events (id String, day ${partitionType}, big Int64, ubig UInt64, price Decimal(18, 4), ` +
        'at DateTime, blob String, note Nullable(String), created DateTime DEFAULT now(), ' +
        `source String DEFAULT 'dpone', _dpone_op String, _dpone_epoch UInt64) ENGINE = MergeTree PARTITION BY day ORDER BY id`,
    );
}

function openTyped(db: string) {
  return live.open(db, undefined, { columns: COLUMNS, partitionColumn: 'day' });
}

const FENCE_V = { operationId: 'op-v', epoch: 1, intentDigest: INTENT, holder: 'h1' };

type TestRow = Readonly<Record<string, string | number | null>>;

const mutation = (rows: readonly TestRow[], day: string): MutationRequest => ({
  fence: FENCE_V,
  strategy: 'append',
  partitionColumn: 'day',
  partitionValue: day,
  rows: rowStreamOf(COLUMNS, rowsFromObjects(COLUMNS, rows)),
});

describe.skipIf(unverified)('clickhouse value transport (live)', () => {
  it('typed columns receive exact values, and DEFAULT columns get their defaults', async () => {
    const db = await live.freshDb();
    await typedTable(db);
    await using target = await openTyped(db);
    await target.prepareFence(FENCE_V, CREATE);
    const rows = [
      {
        id: '1',
        day: '2026-07-18',
        big: '9007199254740993',
        ubig: '18446744073709551615',
        price: '12.5',
        at: '2026-07-18 10:00:00',
        blob: new Uint8Array([0, 255, 9, 10, 92]) as unknown as string,
        note: 'tab\there\nnewline \\N',
      },
      {
        id: '2',
        day: '2026-07-18',
        big: -42,
        ubig: 7,
        price: 0.1,
        at: '2026-07-18 23:59:59',
        blob: '',
        note: null,
      },
    ];
    expect(await target.mutate(mutation(rows, '2026-07-18'))).toEqual({
      applied: true,
      rowsWritten: 2,
      epoch: 1,
    });
    const out = await live
      .server()
      .exec(
        `SELECT id, toString(big), toString(ubig), toString(price), toString(at), hex(blob), note, ` +
          `created > toDateTime('2020-01-01 00:00:00'), source FROM ${db}.events ORDER BY id FORMAT TSV`,
      );
    expect(out.trim().split('\n')).toEqual([
      '1\t9007199254740993\t18446744073709551615\t12.5000\t2026-07-18 10:00:00\t00FF090A5C\ttab\\there\\nnewline \\\\N\t1\tdpone',
      '2\t-42\t7\t0.1000\t2026-07-18 23:59:59\t\t\\N\t1\tdpone',
    ]);
  });

  it('a value the column cannot take: DATA_REJECTED with the server code, not the value; nothing attached', async () => {
    const db = await live.freshDb();
    await typedTable(db);
    await using target = await openTyped(db);
    await target.prepareFence(FENCE_V, CREATE);
    const row = {
      id: '1',
      day: '2026-07-18',
      big: 1,
      ubig: 1,
      price: 1,
      at: 'secret-not-a-date',
      blob: '',
      note: null,
    };
    const error = await target.mutate(mutation([row], '2026-07-18')).then(
      () => null,
      (e: { code?: string; message: string }) => e,
    );
    expect(error).toMatchObject({ code: ERROR_CODES.DATA_REJECTED });
    expect(error?.message).toMatch(/column at, row 1 of the partition .*DateTime takes/);
    expect(error?.message).not.toContain('secret');
    expect(await live.count(db)).toBe(0);
    expect(await target.queryFence('op-v')).toMatchObject({ status: 'not-committed' });
  });

  it('a numeric partition key is swapped with an unquoted partition literal', async () => {
    const db = await live.freshDb();
    await typedTable(db, 'UInt32');
    await using target = await openTyped(db);
    await target.prepareFence(FENCE_V, CREATE);
    const row = {
      id: '1',
      day: 20260718,
      big: 1,
      ubig: 1,
      price: 1,
      at: '2026-07-18 00:00:00',
      blob: '',
      note: null,
    };
    await target.mutate(mutation([row], '20260718'));
    expect(await live.count(db, 'day = 20260718')).toBe(1);
    expect(await target.queryFence('op-v')).toMatchObject({ status: 'committed', rowsWritten: 1 });
  });

  it('the source reads Int64, UInt64 and Decimal exactly (JSON carries a Decimal as a bare number)', async () => {
    const db = await live.freshDb();
    await live
      .server()
      .exec(
        `CREATE TABLE ${db}.nums (id String, day Date, big Nullable(Int64), ubig UInt64, ` +
          'price Nullable(Decimal(18, 6)), amount Float64) ENGINE = MergeTree PARTITION BY day ORDER BY id',
      );
    await live
      .server()
      .exec(
        `INSERT INTO ${db}.nums VALUES ('1', '2026-07-18', -4611686018427387905, 18446744073709551615, ` +
          `-123456789012.345678, 0.30000000000000004), ('2', '2026-07-18', NULL, 9007199254740993, NULL, 1e-7)`,
      );
    await using source = await ClickHouseSource.open({
      url: live.server().url(db),
      table: 'nums',
      columns: ['id', 'big', 'ubig', 'price', 'amount'],
    });
    const rows = await collectRows(
      await source.read({ partitionColumn: 'day', partitionValue: '2026-07-18' }),
    );
    expect(rows).toEqual([
      ['1', '-4611686018427387905', '18446744073709551615', '-123456789012.345678', '0.30000000000000004'],
      ['2', null, '9007199254740993', null, '1e-7'],
    ]);
  });
});
