import { DponeError, ERROR_CODES } from '../../../../src/contracts/errors.ts';

/**
 * A ClickHouse server as the harness reaches it: HTTP straight to the server (never through a
 * test proxy), with a user allowed to create databases. The password stays in memory.
 */
export interface ClickHouseEndpoint {
  readonly host: string;
  readonly httpPort: number;
  readonly user: string;
  readonly password: string;
}

/** A server this process owns: server faults kill it and start it again on the same data. */
export interface ControllableClickHouse {
  readonly admin: ClickHouseEndpoint;
  kill(signal?: 'SIGKILL' | 'SIGTERM'): Promise<void>;
  restart(signal?: 'SIGKILL' | 'SIGTERM'): Promise<void>;
}

/**
 * Runs one statement over HTTP and returns the body. A refusal or an unreachable server is
 * ENVIRONMENT_UNAVAILABLE naming `what` (the server's message, which may quote SQL, stays `cause`).
 */
export async function clickhouseHttp(
  endpoint: ClickHouseEndpoint,
  sql: string,
  what: string,
  settings: Readonly<Record<string, number>> = {},
): Promise<string> {
  const auth = Buffer.from(`${endpoint.user}:${endpoint.password}`).toString('base64');
  const query = new URLSearchParams(Object.entries(settings).map(([k, v]) => [k, String(v)])).toString();
  let response: Response;
  try {
    response = await fetch(`http://${endpoint.host}:${endpoint.httpPort}/${query ? `?${query}` : ''}`, {
      method: 'POST',
      headers: { authorization: `Basic ${auth}` },
      body: sql,
      signal: AbortSignal.timeout(30_000),
    });
  } catch (error) {
    throw new DponeError(
      ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
      `ClickHouse could not be reached to ${what}`,
      {},
      { cause: error },
    );
  }
  const body = await response.text();
  if (!response.ok) {
    throw new DponeError(
      ERROR_CODES.ENVIRONMENT_UNAVAILABLE,
      `ClickHouse refused to ${what}`,
      {},
      { cause: body },
    );
  }
  return body;
}

/** Runs a SELECT and parses its JSONEachRow lines. */
export async function clickhouseRows<T>(
  endpoint: ClickHouseEndpoint,
  sql: string,
  what: string,
): Promise<T[]> {
  const body = await clickhouseHttp(endpoint, `${sql} FORMAT JSONEachRow`, what);
  return body
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as T);
}

/** A login workers use (the harness's own requests go as `admin`). */
export interface ClickHouseLogin {
  readonly user: string;
  readonly password: string;
}

/** A dedicated server a cell's server faults may kill and restart (the provider owns it). */
export interface DedicatedClickHouse extends ControllableClickHouse, AsyncDisposable {
  readonly worker: ClickHouseLogin;
  readonly proxyUpstream: string;
}

/** What the environment offers of ClickHouse (service `clickhouse`). */
export interface ClickHouseService {
  /** Straight to the server, as a user that may create and drop databases. */
  readonly admin: ClickHouseEndpoint;
  /** The login workers use (a password-protected user, so `password_env` is exercised). */
  readonly worker: ClickHouseLogin;
  /** host:port Toxiproxy uses to reach the HTTP port (differs inside a container network). */
  readonly proxyUpstream: string;
  /** A fresh server for cells that kill or restart it; absent when the provider owns none. */
  readonly dedicated?: () => Promise<DedicatedClickHouse>;
}
