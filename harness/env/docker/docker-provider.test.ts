import { createServer } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dockerEndpoint, probeDockerEngine } from './docker-engine-probe.ts';
import { startDocker } from './docker-provider.ts';
import { ENGINE_SERVICES } from '../../routes/engine-services.ts';
import { SERVICE_ORDER } from '../../routes/route-registry.ts';
import { TOXIPROXY } from '../services.ts';

/** Any server a route may start: the first of the registry's. */
const SERVER = SERVICE_ORDER[0]!;

describe('docker provider', () => {
  it('reports UNVERIFIED with one line when no engine answers at the socket', async () => {
    const socket = join(mkdtempSync(join(tmpdir(), 'dpone-docker-')), 'absent.sock');
    const result = await startDocker(ENGINE_SERVICES, [SERVER, TOXIPROXY], {
      DOCKER_HOST: `unix://${socket}`,
    });
    expect(result.status).toBe('unverified');
    if (result.status === 'unverified') {
      expect(result.reason).toMatch(
        /^docker provider: no Docker engine answers at unix:\/\/.*absent\.sock \(ENOENT\)$/,
      );
      expect(result.reason).not.toContain('\n');
    }
  });

  it('reads the TCP endpoint from DOCKER_HOST and treats a non-200 ping as no engine', async () => {
    const server = createServer((_req, res) => {
      res.statusCode = 503;
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      expect(dockerEndpoint({ DOCKER_HOST: `tcp://127.0.0.1:${port}` })).toMatchObject({
        host: '127.0.0.1',
        port,
      });
      expect(await probeDockerEngine({ DOCKER_HOST: `tcp://127.0.0.1:${port}` })).toMatch(
        /answered HTTP 503/,
      );
    } finally {
      server.close();
    }
  });

  it('gives up on a silent engine after the timeout instead of hanging', async () => {
    const server = createServer(() => undefined);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      expect(await probeDockerEngine({ DOCKER_HOST: `tcp://127.0.0.1:${port}` }, 200)).toMatch(
        /within 200 ms/,
      );
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
