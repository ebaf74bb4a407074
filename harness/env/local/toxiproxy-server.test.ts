import { afterAll, describe, expect, it } from 'vitest';
import { exitingBinary } from './exiting-binary.test-support.ts';
import { LocalToxiproxyServer } from './toxiproxy-server.ts';

describe('LocalToxiproxyServer.start', () => {
  const server = exitingBinary('toxiproxy-server', 4, 1);
  afterAll(() => server.remove());

  it('starts a server that exits at once again on other ports, three times, then says it did not start', async () => {
    await expect(LocalToxiproxyServer.start(server.binary)).rejects.toMatchObject({
      code: 'DPONE_ENVIRONMENT_UNAVAILABLE',
      message: 'the local Toxiproxy server did not start',
    });
    // Each start was given its own port.
    const ports = server.starts();
    expect(ports).toHaveLength(3);
    expect(new Set(ports).size).toBe(3);
  });
});
