import { describe, expect, it } from 'vitest';
import { provisionExternal } from './external-provider.ts';

describe('external provider', () => {
  it('is UNVERIFIED with the variables to set when none are given', async () => {
    const result = await provisionExternal({});
    expect(result).toEqual({ status: 'unverified', reason: expect.stringContaining('DPONE_PG_URL') });
  });

  it('refuses a password inside the URL without echoing it', async () => {
    const result = await provisionExternal({
      DPONE_PG_URL: 'postgres://u:s3cret@db.example:5432/x',
      DPONE_TOXIPROXY_URL: 'http://127.0.0.1:1',
    });
    expect(result.status).toBe('unverified');
    expect(JSON.stringify(result)).not.toContain('s3cret');
  });
});
