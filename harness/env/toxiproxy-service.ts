/** A Toxiproxy server as the routes' parts use it (service `toxiproxy`): proxies in front of servers. */

export interface ProxyEndpoint {
  readonly name: string;
  /** Where clients connect to go through the proxy. */
  readonly host: string;
  readonly port: number;
}

export interface ToxiproxyService {
  /** Base URL of the Toxiproxy HTTP API, for toxiproxy-node-client. */
  readonly apiUrl: string;
  version(): Promise<string>;
  /** Creates a proxy named `name` in front of `upstream` (host:port as the proxy server sees it). */
  createProxy(name: string, upstream: string): Promise<ProxyEndpoint>;
}

/** Deletes a proxy (best effort: a cell's end must not fail on it). */
export async function deleteProxy(toxiproxy: ToxiproxyService, name: string): Promise<void> {
  await fetch(`${toxiproxy.apiUrl}/proxies/${encodeURIComponent(name)}`, {
    method: 'DELETE',
    signal: AbortSignal.timeout(5000),
  }).catch(() => undefined);
}
