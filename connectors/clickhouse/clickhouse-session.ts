import { Readable } from 'node:stream';
import type { ClickHouseEndpoint } from './clickhouse-config.ts';

/**
 * The slice of a ClickHouse client the connectors use: statements, JSON rows and JSONEachRow
 * inserts. Unit tests hand the protocol a small fake; the real one wraps `@clickhouse/client`.
 */
export interface ClickHouseSql {
  /** Runs a statement that returns no rows (DDL, ALTER, OPTIMIZE), with per-query settings if given. */
  command(sql: string, settings?: Readonly<Record<string, number>>): Promise<void>;
  /** Runs a SELECT and returns its rows (JSONEachRow; 64-bit integers arrive as strings). */
  rows<T extends Record<string, unknown>>(sql: string): Promise<T[]>;
  /** One INSERT statement of JSONEachRow rows into `table` (already quoted). */
  insert(table: string, rows: readonly Record<string, unknown>[]): Promise<void>;
  /**
   * One INSERT statement of TabSeparated bytes into `table` (already quoted) with an explicit
   * column list (already quoted): columns left out get the table's DEFAULT expressions. A stream
   * body is sent as it is produced (one HTTP request, nothing buffered whole).
   */
  insertTsv(table: string, columns: readonly string[], body: Buffer | AsyncIterable<Buffer>): Promise<void>;
  close(): Promise<void>;
}

/**
 * Opens an HTTP client (the driver is loaded lazily). Its logger is switched off: the driver would
 * otherwise print server messages, which may quote SQL or row values, to stderr. `readOnly` makes
 * the server refuse every write on it.
 */
export async function openClickHouseSql(
  endpoint: ClickHouseEndpoint,
  options: { readonly readOnly?: boolean } = {},
): Promise<ClickHouseSql> {
  const { createClient, ClickHouseLogLevel } = await import('@clickhouse/client');
  const client = createClient({
    // readonly=1: the server itself refuses any write on this connection (recovery inspect/plan).
    ...(options.readOnly ? { clickhouse_settings: { readonly: '1' } } : {}),
    url: endpoint.httpUrl,
    username: endpoint.username,
    password: endpoint.password,
    database: endpoint.database,
    request_timeout: endpoint.requestTimeoutMs,
    log: { level: ClickHouseLogLevel.OFF },
    keep_alive: { enabled: false },
  });
  return {
    async command(sql, settings) {
      await client.command({ query: sql, ...(settings ? { clickhouse_settings: { ...settings } } : {}) });
    },
    async rows<T extends Record<string, unknown>>(sql: string) {
      const result = await client.query({ query: sql, format: 'JSONEachRow' });
      return (await result.json()) as T[];
    },
    async insert(table, rows) {
      await client.insert({ table, values: rows as Record<string, unknown>[], format: 'JSONEachRow' });
    },
    async insertTsv(table, columns, body) {
      await client.insert({
        table,
        values: Readable.from(Buffer.isBuffer(body) ? [body] : body, { objectMode: false }),
        format: 'TabSeparated',
        columns: [...columns] as [string, ...string[]],
      });
    },
    async close() {
      await client.close();
    },
  };
}
