import { randomBytes } from 'node:crypto';

/**
 * Environment variables the `external` provider reads for Toxiproxy. Credentials come from
 * variables only; each engine's (its URL, password and upstream) are in its service entry
 * (services.ts lists them).
 */
export const EXTERNAL_ENV = {
  toxiproxyUrl: 'DPONE_TOXIPROXY_URL',
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

/** A server URL without a password, or why not (the password has its own variable). */
export function serverUrl(env: NodeJS.ProcessEnv, name: string, passwordVar: string): URL | string {
  let url: URL;
  try {
    url = new URL(env[name] ?? '');
  } catch {
    return `${name} is not a URL`;
  }
  if (url.password) return `put the password in ${passwordVar}, not in ${name}`;
  return url;
}

/**
 * Where an external database server is and who logs in: the URL's host and port (else the engine's
 * default port), its user (else the engine's default), the password from its own variable, and the
 * host:port Toxiproxy forwards to (the URL's, unless the upstream variable names another).
 */
export function serverLogin(
  env: NodeJS.ProcessEnv,
  url: URL,
  engine: {
    readonly port: number;
    readonly user: string;
    readonly passwordVar: string;
    readonly upstreamVar: string;
  },
): { host: string; port: number; user: string; password: string; proxyUpstream: string } {
  const port = Number(url.port || engine.port);
  return {
    host: url.hostname,
    port,
    user: decodeURIComponent(url.username || engine.user),
    password: env[engine.passwordVar] ?? '',
    proxyUpstream: env[engine.upstreamVar] ?? `${url.hostname}:${port}`,
  };
}

/** An engine's variables for the external provider (its `<ENGINE>_ENV`): its URL, password and Toxiproxy upstream. */
export interface ServerVariables {
  readonly url: string;
  readonly password: string;
  readonly upstream: string;
}

/**
 * The user's server that an engine's variables name: its URL (serverUrl) and who logs in there
 * (serverLogin, the engine's default port and user), or why not.
 */
export function externalLogin(
  env: NodeJS.ProcessEnv,
  variables: ServerVariables,
  defaults: { readonly port: number; readonly user: string },
): { url: URL; login: ReturnType<typeof serverLogin> } | string {
  const url = serverUrl(env, variables.url, variables.password);
  if (typeof url === 'string') return url;
  const engine = { ...defaults, passwordVar: variables.password, upstreamVar: variables.upstream };
  return { url, login: serverLogin(env, url, engine) };
}

/** A fresh name for the run's throw-away database of cells. */
export const cellsDatabaseName = (): string => `dpone_cells_${randomBytes(6).toString('hex')}`;
