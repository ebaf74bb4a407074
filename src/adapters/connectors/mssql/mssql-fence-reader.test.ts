import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../../contracts/errors.ts';
import { FakeMssql, driverError } from './mssql-fake-driver.ts';
import { FENCE_SQL } from './mssql-fence.ts';
import { openMssqlFenceReader } from './mssql-fence-reader.ts';
import { OP, PASSWORD, URL, caught } from './mssql-target.test-support.ts';

describe('openMssqlFenceReader (driver slice faked)', () => {
  it('sends only the locked fence SELECT: no DDL, no transaction', async () => {
    const fake = new FakeMssql();
    fake.respond = () => ({
      recordset: [{ epoch: '3', status: 'committed', committed_epoch: '2', rows_written: '5' }],
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
    });
    expect(fake.kinds).toEqual(['connect', 'query']);
    expect(fake.queries).toEqual([{ tx: null, text: FENCE_SQL.select, params: { operation_id: OP } }]);
    expect(FENCE_SQL.select).toContain('WITH (READCOMMITTEDLOCK)');
  });

  it('an unreachable server or a missing fence table is FENCE_UNAVAILABLE without secrets', async () => {
    const fake = new FakeMssql();
    fake.respond = () => {
      throw driverError(208, `Invalid object name '_dpone_fence' in ${FENCE_SQL.select}`);
    };
    await using reader = openMssqlFenceReader({
      url: URL,
      password: PASSWORD,
      loadDriver: async () => fake.driver(),
    });
    const missing = await caught(reader.queryFence(OP));
    expect([missing.code, missing.fields.operationId]).toEqual([ERROR_CODES.FENCE_UNAVAILABLE, OP]);
    fake.connectError = driverError(18456, `Login failed (${PASSWORD})`);
    expect((await caught(reader.queryFence(OP))).code).toBe(ERROR_CODES.FENCE_UNAVAILABLE);
  });
});
