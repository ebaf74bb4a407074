import type { PostgresConnection } from '../postgres-config.ts';
import { readPostgresUrl } from '../postgres-config.ts';
import type { PinnedSettings } from '../postgres-settings.ts';

/** The slice of `pg`'s pool configuration this adapter sets. */
export interface PostgresJournalConfig extends PostgresConnection {
  readonly max: number;
  readonly application_name: string;
}

/**
 * What the adapter does beside the pool: nothing of it goes in the startup packet (a pooler
 * refuses or drops startup parameters); the SQL names the schema, transactions pin their settings.
 */
export interface JournalSessionConfig {
  readonly pool: PostgresJournalConfig;
  /** `?schema=` (one schema per tenant or test cell): every statement names it. */
  readonly schema?: string;
  /** statement_timeout / lock_timeout, synchronous_commit: SET LOCAL in each journal transaction. */
  readonly pinned: PinnedSettings;
}

/**
 * Reads `postgres://user[:password]@host:port/database?connect_timeout_ms=&query_timeout_ms=&schema=&synchronous_commit=`
 * as the connectors do (postgres-config.ts), its refusals naming "the PostgreSQL journal URL" (the
 * URL is never echoed: it may carry a password). The password argument (from the environment) wins
 * over one in the URL.
 */
export function parseJournalUrl(url: string, password?: string): JournalSessionConfig {
  const { connection, schema, durableCommit } = readPostgresUrl(url, password, {
    field: '--journal',
    subject: 'the PostgreSQL journal URL',
    scheme: 'postgres://',
    notDurable: ' (on, remote_write or remote_apply: a journal write must be durable)',
  });
  return {
    pool: { ...connection, max: 4, application_name: 'dpone-journal' },
    ...(schema !== undefined ? { schema } : {}),
    pinned: { field: '--journal', timeoutMs: connection.query_timeout, values: false, durableCommit },
  };
}
