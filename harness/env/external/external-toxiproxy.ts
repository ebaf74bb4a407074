import { DponeError, ERROR_CODES } from '../../../src/contracts/errors.ts';
import type { ProxyEndpoint, ToxiproxyService } from '../toxiproxy-service.ts';
import { EXTERNAL_ENV } from './external-env.ts';

export const DEFAULT_LISTEN_HOST = '127.0.0.1';

/** Listen addresses to try, in order: a published range, or one kernel-chosen port. */
export function listenAddresses(host: string, range: string | undefined): string[] {
  const match = /^(\d+)-(\d+)$/.exec(range ?? '');
  if (!match) return [`${host}:0`];
  const [first, last] = [Number(match[1]), Number(match[2])];
  return Array.from({ length: Math.max(0, last - first + 1) }, (_, i) => `${host}:${first + i}`);
}

/** The user's Toxiproxy, and how to remove every proxy made on it. */
export interface ExternalToxiproxy extends AsyncDisposable {
  readonly service: ToxiproxyService;
  readonly version: string;
}

/**
 * The Toxiproxy API DPONE_TOXIPROXY_URL names, or why it cannot be used. Proxies listen on
 * 127.0.0.1 unless DPONE_TOXIPROXY_LISTEN_HOST says otherwise; after dispose (the run ended or
 * was interrupted) nothing new may appear on the user's server, and every proxy made is deleted.
 */
export async function externalToxiproxy(env: NodeJS.ProcessEnv): Promise<ExternalToxiproxy | string> {
  let apiUrl: string;
  try {
    apiUrl = new URL(env[EXTERNAL_ENV.toxiproxyUrl] ?? '').origin;
  } catch {
    return `${EXTERNAL_ENV.toxiproxyUrl} is not a URL`;
  }
  const version = await fetch(`${apiUrl}/version`, { signal: AbortSignal.timeout(3000) })
    .then((r) => (r.ok ? r.text() : null))
    .catch(() => null);
  if (version === null) return `Toxiproxy API does not answer at ${apiUrl}`;
  const created: string[] = [];
  let disposed = false;
  const removeProxies = async () => {
    for (const name of created.splice(0)) {
      await fetch(`${apiUrl}/proxies/${encodeURIComponent(name)}`, {
        method: 'DELETE',
        signal: AbortSignal.timeout(5000),
      }).catch(() => undefined);
    }
  };
  const listenHost = env[EXTERNAL_ENV.toxiproxyListenHost] || DEFAULT_LISTEN_HOST;
  const proxyHost = env[EXTERNAL_ENV.toxiproxyProxyHost] ?? new URL(apiUrl).hostname;
  const service: ToxiproxyService = {
    apiUrl,
    version: async () => version.trim(),
    async createProxy(name: string, upstream: string): Promise<ProxyEndpoint> {
      if (disposed)
        throw new DponeError(ERROR_CODES.ENVIRONMENT_UNAVAILABLE, 'the external environment was disposed');
      for (const listen of listenAddresses(listenHost, env[EXTERNAL_ENV.toxiproxyPorts])) {
        const response = await fetch(`${apiUrl}/proxies`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name, listen, upstream, enabled: true }),
          signal: AbortSignal.timeout(5000),
        });
        if (!response.ok) continue; // that port is taken: try the next one of the range
        const body = (await response.json()) as { listen: string };
        created.push(name);
        if (disposed) await removeProxies();
        return { name, host: proxyHost, port: Number(body.listen.split(':').pop()) };
      }
      throw new DponeError(
        ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
        `Toxiproxy refused proxy ${name} on every allowed port`,
      );
    },
  };
  return {
    service,
    version: version.trim(),
    async [Symbol.asyncDispose]() {
      disposed = true;
      await removeProxies();
    },
  };
}
