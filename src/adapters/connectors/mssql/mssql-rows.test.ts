import { describe, expect, it } from 'vitest';
import { FakeMssql } from './mssql-fake-driver.ts';
import { FENCE_SQL } from './mssql-fence.ts';
import { fenceModel } from './mssql-fence-model.ts';
import { MAX_PARAMETERS_PER_STATEMENT, rowsPerStatement } from './mssql-rows.ts';
import { COLUMNS, CREATE, batch, open, ref, request } from './mssql-target.test-support.ts';

describe('MSSQL target rows (driver slice faked: no server needed)', () => {
  it('rows per INSERT stay within both limits for every width SQL Server allows', () => {
    for (let width = 1; width <= 1024; width++) {
      const rows = rowsPerStatement(width);
      expect(rows).toBeLessThanOrEqual(1000);
      expect(rows * width).toBeLessThan(2100);
    }
  });

  it('replace-partition deletes the partition after the guard and before the inserts, in the same transaction', async () => {
    const fake = new FakeMssql();
    fenceModel(fake);
    await using target = await open(fake);
    await target.prepareFence(ref(1), CREATE);
    fake.events.length = 0;
    await target.mutate(request(1, batch(3), 'replace-partition'));
    expect(fake.kinds).toEqual(['begin', 'query', 'query', 'query', 'query', 'commit']);
    const texts = fake.queries.map((q) => q.text);
    expect(texts[0]).toBe(FENCE_SQL.guard);
    expect(texts[1]).toBe(
      'DELETE FROM [dbo].[events] WHERE CAST([part] AS NVARCHAR(MAX)) = @partition_value',
    );
    expect(fake.queries[1]!.params).toEqual({ partition_value: 'p1' });
    expect(texts[2]).toMatch(/^INSERT INTO \[dbo\]\.\[events\]/);
    expect(texts[3]).toBe(FENCE_SQL.recordRows);
    expect(new Set(fake.queries.map((q) => q.tx)).size).toBe(1);
  });

  it('batches inserts within the 2100-parameter and 1000-row limits, all in the guarded transaction', async () => {
    const fake = new FakeMssql();
    fenceModel(fake);
    await using target = await open(fake);
    for (const [rows, columns, statements] of [
      [1500, COLUMNS, 3], // 666 rows x 3 columns per statement
      [2500, ['id'], 3], // 1000 rows per VALUES at most
    ] as const) {
      fenceModel(fake); // a fresh fence each time: a committed one would refuse the second write
      await target.prepareFence(ref(1), CREATE);
      fake.events.length = 0;
      expect(await target.mutate(request(1, batch(rows, [...columns])))).toMatchObject({ rowsWritten: rows });
      const inserts = fake.queries.filter((q) => q.text.startsWith('INSERT'));
      expect(inserts).toHaveLength(statements);
      for (const insert of inserts) {
        const count = Object.keys(insert.params).length;
        expect(count).toBeLessThanOrEqual(MAX_PARAMETERS_PER_STATEMENT);
        expect(count).toBeLessThan(2100);
        expect(insert.text.match(/@p\d+/g)).toHaveLength(count);
      }
      expect(inserts.reduce((n, q) => n + Object.keys(q.params).length, 0)).toBe(rows * columns.length);
      // Values travel as text: a number keeps its JavaScript spelling.
      expect(inserts[0]!.params.p0).toBe('0');
      expect(fake.kinds.at(-1)).toBe('commit');
    }
  });
});
