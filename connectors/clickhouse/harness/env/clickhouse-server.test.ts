import { afterAll, describe, expect, it } from 'vitest';
import { ClickHouseServer } from './clickhouse-server.ts';
import { exitingBinary } from '../../../../harness/env/local/exiting-binary.test-support.ts';

describe('ClickHouseServer.start', () => {
  const server = exitingBinary('clickhouse-server', 1, 70);
  afterAll(() => server.remove());

  it('starts a server that exits at once again on other ports, three times, then names it', async () => {
    await expect(
      ClickHouseServer.start({ binary: server.binary, startTimeoutMs: 5_000 }),
    ).rejects.toMatchObject({
      code: 'DPONE_ENVIRONMENT_UNAVAILABLE',
      message: 'the local ClickHouse server did not start',
      cause: { message: 'clickhouse-server exited with 70' },
    });
    // Each start had its own config (its own ports).
    expect(new Set(server.starts()).size).toBe(3);
  });
});
