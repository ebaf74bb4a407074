import { DponeError, ERROR_CODES } from '../../../src/contracts/errors.ts';
import type { EnvironmentProvider } from '../environment.ts';
import { asEnvironment } from '../postgres-services.ts';
import type { PostgresServices, ProvisionResult, ProxyEndpoint } from '../postgres-services.ts';

/** Environment variables the `external` provider reads. Credentials come from here only. */
export const EXTERNAL_ENV = {
  pgUrl: 'DPONE_PG_URL',
  pgPassword: 'DPONE_PG_PASSWORD',
  toxiproxyUrl: 'DPONE_TOXIPROXY_URL',
  /** host:port Toxiproxy uses to reach PostgreSQL, when it differs from the URL's (e.g. a container alias). */
  pgUpstream: 'DPONE_PG_UPSTREAM',
  /** Host on which the Toxiproxy server's proxy ports are reachable from here (default: the API host). */
  toxiproxyProxyHost: 'DPONE_TOXIPROXY_PROXY_HOST',
  /** `FIRST-LAST`: listen ports the proxies may use (the ports a container publishes, e.g. 58666-58697). */
  toxiproxyPorts: 'DPONE_TOXIPROXY_PORTS',
} as const;

/** Listen addresses to try, in order: a published range, or one kernel-chosen port. */
function listenAddresses(range: string | undefined): string[] {
  const match = /^(\d+)-(\d+)$/.exec(range ?? '');
  if (!match) return ['0.0.0.0:0'];
  const [first, last] = [Number(match[1]), Number(match[2])];
  return Array.from({ length: Math.max(0, last - first + 1) }, (_, i) => `0.0.0.0:${first + i}`);
}

/**
 * The `external` provider: a user's own PostgreSQL and Toxiproxy given by URL. A password
 * inside DPONE_PG_URL is refused (it would end up in logs or shell history); it must come from
 * DPONE_PG_PASSWORD. Nothing is started or stopped; proxies it created are removed on dispose.
 */
export async function provisionExternal(env: NodeJS.ProcessEnv = process.env): Promise<ProvisionResult> {
  const pgUrl = env[EXTERNAL_ENV.pgUrl];
  const toxiUrl = env[EXTERNAL_ENV.toxiproxyUrl];
  if (!pgUrl || !toxiUrl) {
    return {
      status: 'unverified',
      reason: `external provider: set ${EXTERNAL_ENV.pgUrl}, ${EXTERNAL_ENV.pgPassword} and ${EXTERNAL_ENV.toxiproxyUrl}`,
    };
  }
  let url: URL;
  let api: URL;
  try {
    url = new URL(pgUrl);
    api = new URL(toxiUrl);
  } catch {
    return {
      status: 'unverified',
      reason: `external provider: ${EXTERNAL_ENV.pgUrl} or ${EXTERNAL_ENV.toxiproxyUrl} is not a URL`,
    };
  }
  if (url.password) {
    return {
      status: 'unverified',
      reason: `external provider: put the password in ${EXTERNAL_ENV.pgPassword}, not in ${EXTERNAL_ENV.pgUrl}`,
    };
  }
  const created: string[] = [];
  const apiUrl = api.origin;
  const proxyHost = env[EXTERNAL_ENV.toxiproxyProxyHost] ?? api.hostname;
  const version = await fetch(`${apiUrl}/version`, { signal: AbortSignal.timeout(3000) })
    .then((r) => (r.ok ? r.text() : null))
    .catch(() => null);
  if (version === null)
    return { status: 'unverified', reason: `external provider: Toxiproxy API does not answer at ${apiUrl}` };
  const port = Number(url.port || 5432);
  const services: PostgresServices = {
    provider: 'external',
    postgres: {
      host: url.hostname,
      port,
      user: decodeURIComponent(url.username || 'postgres'),
      password: env[EXTERNAL_ENV.pgPassword] ?? '',
      adminDatabase: url.pathname.slice(1) || 'postgres',
      proxyUpstream: env[EXTERNAL_ENV.pgUpstream] ?? `${url.hostname}:${port}`,
    },
    toxiproxy: {
      apiUrl,
      version: async () => version.trim(),
      async createProxy(name: string, upstream: string): Promise<ProxyEndpoint> {
        for (const listen of listenAddresses(env[EXTERNAL_ENV.toxiproxyPorts])) {
          const response = await fetch(`${apiUrl}/proxies`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ name, listen, upstream, enabled: true }),
            signal: AbortSignal.timeout(5000),
          });
          if (!response.ok) continue; // that port is taken: try the next one of the range
          const body = (await response.json()) as { listen: string };
          created.push(name);
          return { name, host: proxyHost, port: Number(body.listen.split(':').pop()) };
        }
        throw new DponeError(
          ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
          `Toxiproxy refused proxy ${name} on every allowed port`,
        );
      },
    },
    versions: { postgres: 'external', toxiproxy: version.trim() },
    async [Symbol.asyncDispose]() {
      for (const name of created) {
        await fetch(`${apiUrl}/proxies/${encodeURIComponent(name)}`, { method: 'DELETE' }).catch(
          () => undefined,
        );
      }
    },
  };
  return { status: 'started', services };
}

/** The `external` provider as the harness registry sees it. */
export const provider: EnvironmentProvider = {
  name: 'external',
  start: async ({ env }) => asEnvironment(await provisionExternal(env)),
};
