import pg from 'pg';
import type { PostgresClientConfig } from './postgres-config.ts';
import type { TransactionMode } from './postgres-settings.ts';
import { SESSION_SETTINGS, beginPinned } from './postgres-settings.ts';

/** The slice of a pg client the connectors use. */
export interface SqlClient {
  query(
    text: string,
    values?: readonly unknown[],
  ): Promise<{ rows: Record<string, unknown>[]; rowCount: number | null }>;
}

export interface PostgresSessionOptions {
  /**
   * Unsafe variant `trusts-startup-parameters` only: the settings go as startup `-c` options (what
   * dpone did before issue 28) and transactions start with a plain BEGIN, nothing read back.
   */
  readonly trustStartupParameters?: boolean;
}

/**
 * One connection, opened on first use and discarded after any driver error: a timed-out or reset
 * connection is in an unknown protocol state, so the next call starts a fresh one. Nothing but
 * the login and application_name goes in the startup packet (a pooler refuses or drops the rest):
 * every transaction pins its settings itself (`begin`).
 */
export class PostgresSession {
  readonly #config: PostgresClientConfig;
  readonly #trustStartup: boolean;
  #client: pg.Client | null = null;

  constructor(config: PostgresClientConfig, options: PostgresSessionOptions = {}) {
    this.#config = config;
    this.#trustStartup = options.trustStartupParameters === true;
  }

  /** The per-statement bound the connection was opened with (query_timeout_ms). */
  get queryTimeoutMs(): number {
    return this.#config.query_timeout;
  }

  async client(): Promise<pg.Client> {
    if (this.#client) return this.#client;
    const { pinned: _pinned, ...login } = this.#config;
    const client = new pg.Client(
      this.#trustStartup ? { ...login, ...startupParameters(this.#config) } : login,
    );
    // A server that dies between calls must not crash the process; the next query reports it.
    client.on('error', () => undefined);
    try {
      await client.connect();
    } catch (error) {
      this.#destroy(client);
      throw error;
    }
    this.#client = client;
    return client;
  }

  /**
   * Opens a transaction on `client` with the settings pinned (SET LOCAL) and read back; refuses
   * (exit 2) where one does not hold.
   */
  async begin(client: SqlClient, mode: TransactionMode): Promise<void> {
    if (this.#trustStartup) {
      await client.query(mode === 'read-only' ? 'BEGIN READ ONLY' : 'BEGIN');
      return;
    }
    await beginPinned(client, this.#config.pinned, mode);
  }

  /** Runs body; on any error the connection is thrown away before the error propagates. */
  async use<T>(body: (client: pg.Client) => Promise<T>): Promise<T> {
    const client = await this.client();
    try {
      return await body(client);
    } catch (error) {
      this.discard();
      throw error;
    }
  }

  /** Drops the current connection without waiting for the server (it may be unreachable). */
  discard(): void {
    const client = this.#client;
    this.#client = null;
    if (client) this.#destroy(client);
  }

  async close(): Promise<void> {
    const client = this.#client;
    this.#client = null;
    if (!client) return;
    const timer = setTimeout(() => this.#destroy(client), 1000);
    await client.end().catch(() => undefined);
    clearTimeout(timer);
  }

  #destroy(client: pg.Client): void {
    const stream = (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection
      ?.stream;
    stream?.destroy();
    client.end().catch(() => undefined);
  }
}

/** The startup parameters the unsafe variant trusts (and a pooler refuses or drops). */
function startupParameters(config: PostgresClientConfig) {
  const { pinned } = config;
  const options = [
    ...(pinned.searchPath !== undefined ? [`-c search_path=${pinned.searchPath}`] : []),
    ...Object.entries(SESSION_SETTINGS).map(([name, value]) => `-c ${name}=${value.replace(' ', '')}`),
  ].join(' ');
  return { statement_timeout: pinned.timeoutMs, lock_timeout: pinned.timeoutMs, options };
}
