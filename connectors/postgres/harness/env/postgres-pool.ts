import { createHash } from 'node:crypto';
import pg from 'pg';

/**
 * The harness's own connections to a PostgreSQL server shared by every cell of a run, kept open
 * between its reads and set-up statements instead of one connection each. A new connection costs
 * the server a backend process and both sides a SCRAM exchange; a PostgreSQL cell made dozens.
 * Only servers the route marks shared are pooled (`poolable`): a dedicated server is killed and
 * restarted by server faults, so its connections stay one per call.
 *
 * A client goes back to its pool only after `body` succeeded (every body here commits what it
 * began); one whose body threw is closed, so no aborted transaction is ever handed on.
 */
const pools = new Map<string, { readonly pool: pg.Pool; readonly server: string }>();

/** At most this many idle connections per server, database and settings. */
const MAX_PER_POOL = 4;

function keyOf(config: pg.ClientConfig): string {
  // The password only as a digest: the key stays in memory, but nothing here keeps a secret's text.
  const secret = createHash('sha256')
    .update(String(config.password ?? ''))
    .digest('hex');
  return JSON.stringify([
    config.host,
    config.port,
    config.user,
    config.database,
    config.options ?? '',
    config.query_timeout ?? null,
    secret,
  ]);
}

/** Runs `body` on a pooled connection for `config` (same server, database, user and settings). */
export async function withPooledClient<T>(
  config: pg.ClientConfig,
  body: (client: pg.ClientBase) => Promise<T>,
): Promise<T> {
  const key = keyOf(config);
  let entry = pools.get(key);
  if (!entry) {
    const pool = new pg.Pool({
      ...config,
      max: MAX_PER_POOL,
      idleTimeoutMillis: 10_000,
      allowExitOnIdle: true,
    });
    // An idle connection the server closed is dropped by the pool; its error is not the caller's.
    pool.on('error', () => undefined);
    // A dropped connection's late error event, once per connection (not per use: listeners pile up).
    pool.on('connect', (client) => client.on('error', () => undefined));
    entry = { pool, server: `${config.host}:${config.port}` };
    pools.set(key, entry);
  }
  const client = await entry.pool.connect();
  let failed = false;
  try {
    return await body(client);
  } catch (error) {
    failed = true;
    throw error;
  } finally {
    client.release(failed);
  }
}

/**
 * Runs `body` on a connection for `config`: a kept one when `pooled`, else one of its own, closed
 * whatever `body` does (a dropped connection's late error event is ignored; the query rejects).
 */
export async function withPostgresClient<T>(
  config: pg.ClientConfig,
  pooled: boolean,
  body: (client: pg.ClientBase) => Promise<T>,
): Promise<T> {
  if (pooled) return withPooledClient(config, body);
  const client = new pg.Client(config);
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await body(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Closes every pooled connection to `host:port` (all of them when absent): before the server goes
 * away, and after its role's settings change, so later connections start with the new settings.
 */
export async function closePools(server?: { readonly host: string; readonly port: number }): Promise<void> {
  const which = server ? `${server.host}:${server.port}` : null;
  const closing: Promise<void>[] = [];
  for (const [key, entry] of pools) {
    if (which !== null && entry.server !== which) continue;
    pools.delete(key);
    closing.push(entry.pool.end().catch(() => undefined));
  }
  await Promise.all(closing);
}

const shared = new WeakSet<object>();

/** Marks a server endpoint as shared by the run's cells: the harness may pool connections to it. */
export function markShared(server: object): void {
  shared.add(server);
}

/** Whether connections to this endpoint may be pooled. */
export function poolable(server: object): boolean {
  return shared.has(server);
}
