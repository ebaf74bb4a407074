import { describe, expect, it } from 'vitest';
import { startExternal } from './external-provider.ts';
import { ENGINE_SERVICES } from '../../routes/engine-services.ts';

describe('external provider', () => {
  it('is UNVERIFIED with the variables to set when none are given', async () => {
    const result = await startExternal(ENGINE_SERVICES, ['postgres', 'toxiproxy'], {});
    expect(result).toEqual({ status: 'unverified', reason: expect.stringContaining('DPONE_PG_URL') });
  });

  it('refuses a password inside the URL without echoing it', async () => {
    const result = await startExternal(ENGINE_SERVICES, ['postgres', 'toxiproxy'], {
      DPONE_PG_URL: 'postgres://u:s3cret@db.example:5432/x',
      DPONE_TOXIPROXY_URL: 'http://127.0.0.1:1',
    });
    expect(result.status).toBe('unverified');
    expect(JSON.stringify(result)).not.toContain('s3cret');
  });

  it('asks only for the variables of the services the route needs', async () => {
    const clickhouse = await startExternal(ENGINE_SERVICES, ['clickhouse', 'toxiproxy'], {});
    expect(clickhouse).toEqual({
      status: 'unverified',
      reason: 'external provider: set DPONE_CH_URL, DPONE_CH_PASSWORD, DPONE_TOXIPROXY_URL',
    });
    const mssql = await startExternal(ENGINE_SERVICES, ['mssql'], {});
    expect(mssql).toEqual({
      status: 'unverified',
      reason: 'external provider: set DPONE_MSSQL_URL, DPONE_MSSQL_PASSWORD',
    });
  });
});
