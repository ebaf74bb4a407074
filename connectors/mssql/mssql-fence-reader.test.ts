import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/contracts/errors.ts';
import { FakeMssql, driverError } from './mssql-fake-driver.ts';
import { FENCE_SQL } from './mssql-fence.ts';
import { openMssqlFenceReader } from './mssql-fence-reader.ts';
import { OP, PASSWORD, URL, caught } from './mssql-target.test-support.ts';

describe('openMssqlFenceReader (driver slice faked)', () => {
  it('sends only the locked, schema-qualified fence SELECT: no DDL, no transaction', async () => {
    const fake = new FakeMssql();
    fake.respond = () => ({
      recordset: [
        {
          epoch: '3',
          status: 'committed',
          committed_epoch: '2',
          rows_written: '5',
          intent_digest: 'i',
          holder: 'h',
        },
      ],
      rowsAffected: [1],
    });
    await using reader = openMssqlFenceReader({
      url: URL,
      password: PASSWORD,
      loadDriver: async () => fake.driver(),
    });
    expect(fake.events).toEqual([]);
    expect(await reader.queryFence(OP)).toEqual({
      status: 'committed',
      epoch: 3,
      committedEpoch: 2,
      rowsWritten: 5,
      intentDigest: 'i',
      holder: 'h',
    });
    expect(fake.kinds).toEqual(['connect', 'query']);
    expect(fake.queries).toEqual([{ tx: null, text: FENCE_SQL.select, params: { operation_id: OP } }]);
    expect(FENCE_SQL.select).toContain('FROM [dbo].[_dpone_fence] WITH (READCOMMITTEDLOCK)');
  });

  it('a missing fence table is no fence (unknown, no epoch); an unreachable server is FENCE_UNAVAILABLE', async () => {
    const fake = new FakeMssql();
    fake.respond = () => {
      throw driverError(208, `Invalid object name '_dpone_fence' in ${FENCE_SQL.select}`);
    };
    await using reader = openMssqlFenceReader({
      url: URL,
      password: PASSWORD,
      loadDriver: async () => fake.driver(),
    });
    expect(await reader.queryFence(OP)).toMatchObject({ status: 'unknown', epoch: null });
    fake.respond = () => {
      throw driverError(4060, `Cannot open database warehouse in ${FENCE_SQL.select}`);
    };
    const broken = await caught(reader.queryFence(OP));
    expect([broken.code, broken.fields.operationId]).toEqual([ERROR_CODES.FENCE_UNAVAILABLE, OP]);
    fake.connectError = driverError(18456, `Login failed (${PASSWORD})`);
    expect((await caught(reader.queryFence(OP))).code).toBe(ERROR_CODES.FENCE_UNAVAILABLE);
  });
});
