import pg from 'pg';
import type { PostgresClientConfig } from './postgres-config.ts';

/** The slice of a pg client the connectors use. */
export interface SqlClient {
  query(
    text: string,
    values?: readonly unknown[],
  ): Promise<{ rows: Record<string, unknown>[]; rowCount: number | null }>;
}

/**
 * One connection, opened on first use and discarded after any driver error: a timed-out or reset
 * connection is in an unknown protocol state, so the next call starts a fresh one.
 */
export class PostgresSession {
  readonly #config: PostgresClientConfig;
  #client: pg.Client | null = null;

  constructor(config: PostgresClientConfig) {
    this.#config = config;
  }

  /** The per-statement bound the connection was opened with (query_timeout_ms). */
  get queryTimeoutMs(): number {
    return this.#config.query_timeout;
  }

  async client(): Promise<pg.Client> {
    if (this.#client) return this.#client;
    const client = new pg.Client({ ...this.#config });
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
