import { DponeError, ERROR_CODES } from '../../../src/contracts/errors.ts';
import type { ProxyEndpoint, ToxiproxyService } from '../toxiproxy-service.ts';
import { freeLoopbackPort } from '../free-port.ts';
import type { LocalToxiproxyServer } from './toxiproxy-server.ts';

/** Proxies on the local Toxiproxy server, each listening on its own free loopback port. */
export function localToxiproxyService(server: LocalToxiproxyServer): ToxiproxyService {
  return {
    apiUrl: server.apiUrl,
    version: () => server.version(),
    async createProxy(name: string, upstream: string): Promise<ProxyEndpoint> {
      for (let attempt = 0; ; attempt++) {
        const port = await freeLoopbackPort();
        const response = await fetch(`${server.apiUrl}/proxies`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name, listen: `127.0.0.1:${port}`, upstream, enabled: true }),
          signal: AbortSignal.timeout(5000),
        });
        if (response.ok) return { name, host: '127.0.0.1', port };
        // another process may have taken the port between our probe and the proxy's bind
        if (attempt >= 5)
          throw new DponeError(
            ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
            `Toxiproxy refused proxy ${name}: HTTP ${response.status}`,
          );
      }
    },
  };
}
