import { randomBytes } from 'node:crypto';
import { DponeError, ERROR_CODES } from '../../../src/contracts/errors.ts';
import type { EnvironmentProvider } from '../environment.ts';
import { createCellsDatabase, dropCellsDatabase, missingPrivilege } from '../postgres-admin.ts';
import { asEnvironment } from '../postgres-services.ts';
import type {
  PostgresEndpoint,
  PostgresServices,
  ProvisionResult,
  ProxyEndpoint,
} from '../postgres-services.ts';

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
  /**
   * Address the proxies listen on (default 127.0.0.1). A proxy forwards to your database without
   * asking for anything, so it must not be reachable from other machines; only a Toxiproxy inside
   * a container, whose ports are published on the host's loopback, needs 0.0.0.0.
   */
  toxiproxyListenHost: 'DPONE_TOXIPROXY_LISTEN_HOST',
} as const;

export const DEFAULT_LISTEN_HOST = '127.0.0.1';

/** Listen addresses to try, in order: a published range, or one kernel-chosen port. */
export function listenAddresses(host: string, range: string | undefined): string[] {
  const match = /^(\d+)-(\d+)$/.exec(range ?? '');
  if (!match) return [`${host}:0`];
  const [first, last] = [Number(match[1]), Number(match[2])];
  return Array.from({ length: Math.max(0, last - first + 1) }, (_, i) => `${host}:${first + i}`);
}

function unverified(reason: string): ProvisionResult {
  return { status: 'unverified', reason: `external provider: ${reason}` };
}

/** The endpoint DPONE_PG_URL names, or why it cannot be used. */
function endpointOf(env: NodeJS.ProcessEnv): PostgresEndpoint | string {
  let url: URL;
  try {
    url = new URL(env[EXTERNAL_ENV.pgUrl] ?? '');
  } catch {
    return `${EXTERNAL_ENV.pgUrl} is not a URL`;
  }
  if (url.password) return `put the password in ${EXTERNAL_ENV.pgPassword}, not in ${EXTERNAL_ENV.pgUrl}`;
  const port = Number(url.port || 5432);
  return {
    host: url.hostname,
    port,
    user: decodeURIComponent(url.username || 'postgres'),
    password: env[EXTERNAL_ENV.pgPassword] ?? '',
    adminDatabase: decodeURIComponent(url.pathname.slice(1)) || 'postgres',
    proxyUpstream: env[EXTERNAL_ENV.pgUpstream] ?? `${url.hostname}:${port}`,
  };
}

/**
 * The `external` provider: a user's own PostgreSQL and Toxiproxy given by URL. It checks the role's
 * privileges before creating anything, then creates one throw-away database for the run's cells
 * and, on dispose (also after Ctrl-C), drops it and deletes every proxy it created. Proxies listen
 * on 127.0.0.1 unless DPONE_TOXIPROXY_LISTEN_HOST says otherwise. It owns no server, so cells that
 * must kill or restart one are UNVERIFIED with that reason. A password inside DPONE_PG_URL is
 * refused (it would end up in logs or shell history): it comes from DPONE_PG_PASSWORD.
 */
export async function provisionExternal(env: NodeJS.ProcessEnv = process.env): Promise<ProvisionResult> {
  if (!env[EXTERNAL_ENV.pgUrl] || !env[EXTERNAL_ENV.toxiproxyUrl])
    return unverified(
      `set ${EXTERNAL_ENV.pgUrl}, ${EXTERNAL_ENV.pgPassword} and ${EXTERNAL_ENV.toxiproxyUrl}`,
    );
  const postgres = endpointOf(env);
  if (typeof postgres === 'string') return unverified(postgres);
  let apiUrl: string;
  try {
    apiUrl = new URL(env[EXTERNAL_ENV.toxiproxyUrl]!).origin;
  } catch {
    return unverified(`${EXTERNAL_ENV.toxiproxyUrl} is not a URL`);
  }
  const version = await fetch(`${apiUrl}/version`, { signal: AbortSignal.timeout(3000) })
    .then((r) => (r.ok ? r.text() : null))
    .catch(() => null);
  if (version === null) return unverified(`Toxiproxy API does not answer at ${apiUrl}`);
  const missing = await missingPrivilege(postgres);
  if (missing) return unverified(missing);
  const cellsDatabase = `dpone_cells_${randomBytes(6).toString('hex')}`;
  try {
    await createCellsDatabase(postgres, cellsDatabase);
  } catch {
    return unverified(`could not create the run's database ${cellsDatabase}`);
  }
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
  const services: PostgresServices = {
    provider: 'external',
    postgres,
    cellsDatabase,
    toxiproxy: {
      apiUrl,
      version: async () => version.trim(),
      async createProxy(name: string, upstream: string): Promise<ProxyEndpoint> {
        // After dispose (the run ended or was interrupted) nothing new may appear on the user's server.
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
    },
    versions: { postgres: 'external', toxiproxy: version.trim() },
    async [Symbol.asyncDispose]() {
      disposed = true;
      await removeProxies();
      await dropCellsDatabase(postgres, cellsDatabase).catch(() => undefined);
    },
  };
  return { status: 'started', services };
}

/** The `external` provider as the harness registry sees it. */
export const provider: EnvironmentProvider = {
  name: 'external',
  start: async ({ env }) => asEnvironment(await provisionExternal(env)),
};
