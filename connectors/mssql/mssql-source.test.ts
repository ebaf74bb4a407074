import { describe, expect, it } from 'vitest';
import { DponeError, ERROR_CODES } from '../../src/contracts/errors.ts';
import { FakeMssql, driverError } from './mssql-fake-driver.ts';
import { MssqlSource } from './mssql-source.ts';
import { collectRows } from '../../src/ports/row-stream.ts';

const open = (fake: FakeMssql) =>
  MssqlSource.open({
    url: 'mssql://etl@db.example/warehouse',
    password: 'hunter2-secret',
    table: 'dbo.events',
    columns: ['id', 'v'],
    loadDriver: async () => fake.driver(),
  });

describe('MssqlSource (driver slice faked: no server needed)', () => {
  it('connects on first read and reads one partition as text, ordered by every column', async () => {
    const fake = new FakeMssql();
    fake.respond = () => ({
      recordset: [
        { id: '1', v: 'a', extra: 'x' },
        { id: '2', v: null },
      ],
      rowsAffected: [2],
    });
    await using source = await open(fake);
    expect(fake.events).toEqual([]);
    const stream = await source.read({ partitionColumn: 'part', partitionValue: 'p1' });
    expect(stream.columns).toEqual(['id', 'v']);
    expect(await collectRows(stream)).toEqual([
      ['1', 'a'],
      ['2', null],
    ]);
    expect(fake.queries).toEqual([
      {
        tx: null,
        text:
          'SELECT CAST([id] AS NVARCHAR(MAX)) AS [id], CAST([v] AS NVARCHAR(MAX)) AS [v] FROM [dbo].[events] ' +
          'WHERE CAST([part] AS NVARCHAR(MAX)) = @partition_value ORDER BY CAST([id] AS NVARCHAR(MAX)), CAST([v] AS NVARCHAR(MAX))',
        params: { partition_value: 'p1' },
      },
    ]);
  });

  it('a failed read is PRE_COMMIT_FAILED without SQL, host or password', async () => {
    const fake = new FakeMssql();
    fake.connectError = driverError(18456, "Login failed for user 'etl' (hunter2-secret) on db.example");
    await using source = await open(fake);
    const error = await source
      .read({ partitionColumn: 'part', partitionValue: 'p1' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DponeError);
    expect((error as DponeError).code).toBe(ERROR_CODES.PRE_COMMIT_FAILED);
    expect(`${(error as Error).message}${JSON.stringify(error)}`).not.toMatch(
      /hunter2|db\.example|SELECT|etl@/,
    );
  });
});
