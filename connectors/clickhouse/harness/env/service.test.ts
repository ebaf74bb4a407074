import { describe, expect, it } from 'vitest';
import type { StartedEnvironment } from '../../../../harness/env/environment.ts';
import { startExternal } from '../../../../harness/env/external/external-provider.ts';
import { ENGINE_SERVICES, ownsServerFor } from '../../../../harness/routes/engine-services.ts';
import { lostCommitFault } from '../../../../harness/faults/lost-commit-fault.ts';
import { serverKillFault } from '../../../../harness/faults/server-fault.ts';
import { stallFault } from '../../../../harness/faults/stall-fault.ts';
import type { ClickHouseService } from './clickhouse-endpoint.ts';

describe('ClickHouse service entry: the servers of its own it offers the server faults', () => {
  // Stand-ins for a started service: only whether it offers dedicated servers matters here.
  const owning = {
    dedicated: () => Promise.reject(new Error('not started here')),
  } as unknown as ClickHouseService;
  const sharing = {} as unknown as ClickHouseService;

  it('serves server-kill cells where the provider owns servers; never stall or lost-commit cells', () => {
    expect(ownsServerFor({ clickhouse: owning }, 'server-kill')).toBe(true);
    expect(ownsServerFor({ clickhouse: sharing }, 'server-kill')).toBe(false);
    expect(ownsServerFor({ clickhouse: owning }, 'stall')).toBe(false);
    expect(ownsServerFor({ clickhouse: owning }, 'lost-commit')).toBe(false);
    const local = {
      provider: 'local',
      databases: {},
      toxiproxy: null,
      services: { clickhouse: owning },
    } as unknown as StartedEnvironment;
    expect(serverKillFault.unavailableIn!(local)).toBeNull();
    expect(stallFault.unavailableIn!(local)).toMatch(/^provider local owns no server whose backends/);
    expect(lostCommitFault.unavailableIn!(local)).toMatch(/^provider local owns no server it can fail over/);
  });
});

describe('ClickHouse service entry: the external provider', () => {
  it('asks for its URL and password variables, then Toxiproxy’s', async () => {
    expect(await startExternal(ENGINE_SERVICES, ['clickhouse', 'toxiproxy'], {})).toEqual({
      status: 'unverified',
      reason: 'external provider: set DPONE_CH_URL, DPONE_CH_PASSWORD, DPONE_TOXIPROXY_URL',
    });
  });
});
