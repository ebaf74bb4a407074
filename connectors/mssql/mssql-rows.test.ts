import { describe, expect, it } from 'vitest';
import { DEFAULT_CHUNK_ROWS } from '../../src/ports/row-stream.ts';
import { FakeMssql } from './mssql-fake-driver.ts';
import { FENCE_SQL } from './mssql-fence.ts';
import { committedRows, fenceModel } from './mssql-fence-model.ts';
import { loadMssqlDriver } from './mssql-session.ts';
import { CREATE, batch, open, ref, request } from './mssql-target.test-support.ts';

describe('MSSQL target rows (driver slice faked: no server needed)', () => {
  it('the real driver builds the bulk table the fake accepts (no server needed to build one)', async () => {
    const driver = await loadMssqlDriver();
    const table = new driver.Table('[dbo].[events]') as unknown as { path: string; columns: unknown[] };
    const type = driver.NVarChar(driver.MAX);
    table.columns.push(Object.assign(typeof type === 'function' ? type() : type, { name: 'id' }));
    expect(table.path).toBe('[dbo].[events]');
    expect(table.columns[0]).toMatchObject({ name: 'id', length: driver.MAX });
  });

  it('replace-partition deletes the partition after the guard and before the inserts, in the same transaction', async () => {
    const fake = new FakeMssql();
    fenceModel(fake);
    await using target = await open(fake);
    await target.prepareFence(ref(1), CREATE);
    fake.events.length = 0;
    await target.mutate(request(1, batch(3), 'replace-partition'));
    expect(fake.kinds).toEqual(['begin', 'query', 'query', 'bulk', 'query', 'commit']);
    const texts = fake.queries.map((q) => q.text);
    expect(texts[0]).toBe(FENCE_SQL.guard);
    expect(texts[1]).toBe(
      'DELETE FROM [dbo].[events] WHERE CAST([part] AS NVARCHAR(MAX)) = @partition_value',
    );
    expect(fake.queries[1]!.params).toEqual({ partition_value: 'p1' });
    expect(texts[2]).toBe('INSERT BULK [dbo].[events] ([id], [part], [v])');
    expect(texts[3]).toBe(FENCE_SQL.recordRows);
    expect(new Set(fake.queries.map((q) => q.tx)).size).toBe(1);
  });

  it('bulk-loads chunk by chunk (memory stays a chunk), all in the guarded transaction, values as text', async () => {
    const fake = new FakeMssql();
    fenceModel(fake);
    await using target = await open(fake);
    const rows = 2 * DEFAULT_CHUNK_ROWS + 3;
    await target.prepareFence(ref(1), CREATE);
    fake.events.length = 0;
    expect(await target.mutate(request(1, batch(rows)))).toMatchObject({ rowsWritten: rows });
    const loads = fake.queries.filter((q) => q.text.startsWith('INSERT BULK'));
    expect(loads.map((q) => q.rows?.length)).toEqual([DEFAULT_CHUNK_ROWS, DEFAULT_CHUNK_ROWS, 3]);
    expect(new Set(fake.queries.map((q) => q.tx)).size).toBe(1);
    // Values travel as text: a number keeps its JavaScript spelling.
    expect(loads[0]!.rows![0]).toEqual(['0', 'p1', 'v0']);
    expect(loads[2]!.rows!.at(-1)).toEqual([String(rows - 1), 'p1', `v${rows - 1}`]);
    expect(fake.kinds.at(-1)).toBe('commit');
    expect(committedRows(fake)).toBe(rows);
  });

  it("the fence records the server's count of loaded rows, not the rows the source offered", async () => {
    const fake = new FakeMssql();
    // A server that loaded 4 of the 5 rows (say, a trigger or a filter on the table).
    const fences = fenceModel(fake, (q) => (q.rows ? { rowsAffected: [q.rows.length - 1] } : undefined));
    await using target = await open(fake);
    await target.prepareFence(ref(1), CREATE);
    expect(await target.mutate(request(1, batch(5)))).toMatchObject({ rowsWritten: 4 });
    expect([...fences.values()][0]).toMatchObject({ rows_written: 4, status: 'committed' });
  });
});
