import { describe, expect, it } from 'vitest';
import { startExternal } from '../../../../harness/env/external/external-provider.ts';
import { ENGINE_SERVICES } from '../../../../harness/routes/engine-services.ts';

describe('SQL Server service entry: the external provider', () => {
  it('asks for its URL and password variables, and only those when the route needs no proxy', async () => {
    expect(await startExternal(ENGINE_SERVICES, ['mssql'], {})).toEqual({
      status: 'unverified',
      reason: 'external provider: set DPONE_MSSQL_URL, DPONE_MSSQL_PASSWORD',
    });
  });
});
