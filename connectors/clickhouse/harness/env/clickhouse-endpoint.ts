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

/**
 * Runs a SELECT and visits its JSONEachRow lines as the body arrives, keeping none (a
 * 1,000,000-row table is never held whole, nor its text); returns how many. Failures as
 * clickhouseHttp's, a broken row included (ClickHouse reports an error met mid-stream in the body).
 */
export async function clickhouseEachRow<T>(
  endpoint: ClickHouseEndpoint,
  sql: string,
  what: string,
  visit: (row: T) => void,
): Promise<number> {
  const auth = Buffer.from(`${endpoint.user}:${endpoint.password}`).toString('base64');
  const unavailable = (message: string, cause: unknown) =>
    new DponeError(ERROR_CODES.ENVIRONMENT_UNAVAILABLE, message, {}, { cause });
  let response: Response;
  try {
    response = await fetch(`http://${endpoint.host}:${endpoint.httpPort}/`, {
      method: 'POST',
      headers: { authorization: `Basic ${auth}` },
      body: `${sql} FORMAT JSONEachRow`,
      signal: AbortSignal.timeout(120_000),
    });
  } catch (error) {
    throw unavailable(`ClickHouse could not be reached to ${what}`, error);
  }
  if (!response.ok || !response.body)
    throw unavailable(`ClickHouse refused to ${what}`, await response.text());
  let count = 0;
  let pending = '';
  const lines = (text: string) => {
    const parts = (pending + text).split('\n');
    pending = parts.pop() ?? '';
    for (const line of parts) {
      if (line.trim() === '') continue;
      visit(JSON.parse(line) as T);
      count += 1;
    }
  };
  try {
    const decoder = new TextDecoder();
    for await (const chunk of response.body) lines(decoder.decode(chunk as Uint8Array, { stream: true }));
    lines(`${decoder.decode()}\n`);
  } catch (error) {
    throw unavailable(`ClickHouse failed while the harness read rows to ${what}`, error);
  }
  return count;
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

/** The variables the `external` provider reads for ClickHouse (credentials come from here only). */
export const CLICKHOUSE_ENV = {
  /** `clickhouse://USER@HOST:HTTP_PORT` (no password): a user that may create and drop databases. */
  url: 'DPONE_CH_URL',
  password: 'DPONE_CH_PASSWORD',
  upstream: 'DPONE_CH_UPSTREAM',
} as const;
