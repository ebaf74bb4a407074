import { DponeError, ERROR_CODES, invalidInput } from 'dpone-cert';
import type { FenceParams, SqlResult } from 'dpone-cert';

/**
 * The slice of mysql2 this connector uses (typed here, loaded lazily: `dpone run` on another route
 * never loads the driver).
 */
interface MysqlConnection {
  query(options: { sql: string; timeout?: number }, values?: unknown[]): Promise<[unknown, unknown]>;
  end(): Promise<void>;
  destroy(): void;
}

/** Where a MariaDB target is: `mariadb://user@host:port/database` (the password comes from password_env). */
export interface MariadbAddress {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly database: string;
  readonly password?: string;
  /** The URL's `connect_timeout_ms` (default 10 s): how long a connection may take to open. */
  readonly connectTimeoutMs?: number;
  /**
   * The URL's `query_timeout_ms` (default: none): how long one statement may go without a reply
   * before the session is dropped. Bounds a call on a black-holed socket (a network cell).
   */
  readonly queryTimeoutMs?: number;
}

/** The options a URL may carry, each a whole number of milliseconds. */
const TIMEOUT_OPTIONS = {
  connect_timeout_ms: 'connectTimeoutMs',
  query_timeout_ms: 'queryTimeoutMs',
} as const;
const MAX_TIMEOUT_MS = 3_600_000;

function timeoutOptions(
  search: URLSearchParams,
  field: string,
): { connectTimeoutMs?: number; queryTimeoutMs?: number } {
  const options: { connectTimeoutMs?: number; queryTimeoutMs?: number } = {};
  for (const [name, value] of search) {
    const key = Object.hasOwn(TIMEOUT_OPTIONS, name)
      ? TIMEOUT_OPTIONS[name as keyof typeof TIMEOUT_OPTIONS]
      : undefined;
    if (key === undefined)
      throw invalidInput(
        `${field}.url may carry only ${Object.keys(TIMEOUT_OPTIONS).join(' and ')} after '?'; it has another option`,
        { field: `${field}.url` },
      );
    const ms = /^[1-9][0-9]{0,9}$/.test(value) ? Number(value) : Number.NaN;
    if (!(ms <= MAX_TIMEOUT_MS))
      throw invalidInput(
        `${field}.url ${name} must be a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}`,
        {
          field: `${field}.url`,
        },
      );
    options[key] = ms;
  }
  return options;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/**
 * Parses `mariadb://user@host:port/database[?connect_timeout_ms=N&query_timeout_ms=N]`. A password in the URL is refused (a workload is
 * written to disk and evidence): it comes from the variable `password_env` names.
 */
export function mariadbAddress(url: string, field: string, password?: string): MariadbAddress {
  const usage = `${field}.url must be mariadb://<user>@<host>:<port>/<database> (the password from password_env)`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalidInput(usage, { field: `${field}.url` });
  }
  if (parsed.password !== '')
    throw invalidInput(`${field}.url must not carry a password: name its variable in ${field}.password_env`, {
      field: `${field}.url`,
    });
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
  if (
    parsed.protocol !== 'mariadb:' ||
    parsed.hostname === '' ||
    parsed.username === '' ||
    !IDENTIFIER.test(database)
  )
    throw invalidInput(usage, { field: `${field}.url` });
  return {
    host: parsed.hostname,
    port: parsed.port === '' ? 3306 : Number(parsed.port),
    user: decodeURIComponent(parsed.username),
    database,
    ...timeoutOptions(parsed.searchParams, field),
    ...(password !== undefined ? { password } : {}),
  };
}

/** Called after each statement a session returned from (the connector kit's driver probe). */
export type StatementProbe = () => void | Promise<void>;
const probes = new Map<string, StatementProbe>();
const probeKey = (address: MariadbAddress) => `${address.host}:${address.port}/${address.database}`;

/**
 * Test only: every session opened on the address's database until the returned function is called
 * calls `probe` after each statement (BEGIN, each INSERT, COMMIT…), so the kit can crash between
 * two statements of one step (docs/connector-authoring.md, FenceFactoryOptions.afterDriverStatement).
 */
export function probeStatements(address: MariadbAddress, probe: StatementProbe): () => void {
  probes.set(probeKey(address), probe);
  return () => probes.delete(probeKey(address));
}

/** `@name` → `?`, each occurrence, with the values in that order (mysql2's placeholders are positional). */
export function questionMarks(sql: string, params: FenceParams): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  const text = sql.replace(/@([a-z_][a-z0-9_]*)/g, (_, name: string) => {
    values.push(params[name] ?? null);
    return '?';
  });
  return { text, values };
}

/** One connection for one unit of work (a fence batch, a read, the mutation's transaction). */
export class MariadbSession {
  readonly #connection: MysqlConnection;
  readonly #probe: StatementProbe | undefined;
  readonly #queryTimeoutMs: number | undefined;
  /** A statement timed out or the link failed: the connection is dropped, never ended politely. */
  #broken = false;

  private constructor(
    connection: MysqlConnection,
    probe: StatementProbe | undefined,
    queryTimeoutMs: number | undefined,
  ) {
    this.#connection = connection;
    this.#probe = probe;
    this.#queryTimeoutMs = queryTimeoutMs;
  }

  /**
   * Connects in utf8mb4 (a `--no-defaults` server speaks latin1 otherwise: an emoji would not
   * survive), BIGINT and DECIMAL as exact strings, every transaction of the session SERIALIZABLE.
   */
  static async open(address: MariadbAddress): Promise<MariadbSession> {
    const mysql = await import('mysql2/promise');
    let connection: MysqlConnection;
    try {
      connection = (await mysql.createConnection({
        host: address.host,
        port: address.port,
        user: address.user,
        ...(address.password !== undefined ? { password: address.password } : {}),
        database: address.database,
        charset: 'utf8mb4_bin',
        supportBigNumbers: true,
        bigNumberStrings: true,
        dateStrings: true,
        connectTimeout: address.connectTimeoutMs ?? 10_000,
      })) as unknown as MysqlConnection;
    } catch (error) {
      // The driver's message may name the user and host: kept as the cause, never copied.
      throw new DponeError(
        ERROR_CODES.FENCE_UNAVAILABLE,
        'the MariaDB target could not be reached',
        {
          field: 'target.url',
        },
        { cause: error },
      );
    }
    const session = new MariadbSession(connection, probes.get(probeKey(address)), address.queryTimeoutMs);
    try {
      // The fence's compare-and-set reads and writes the fence row in the data's transaction:
      // SERIALIZABLE makes every read in it a locking read of the latest committed row.
      await session.#query('SET SESSION TRANSACTION ISOLATION LEVEL SERIALIZABLE');
      await session.#query("SET SESSION sql_mode = 'STRICT_ALL_TABLES,NO_ENGINE_SUBSTITUTION'");
    } catch (error) {
      connection.destroy();
      throw error;
    }
    return session;
  }

  /** Runs one statement written with `@name` parameters; rows for a query, `affected` otherwise. */
  async run(sql: string, params: FenceParams = {}): Promise<SqlResult> {
    const { text, values } = questionMarks(sql, params);
    return this.runValues(text, values);
  }

  /** Runs a statement with `?` values. */
  async runValues(sql: string, values: unknown[] = []): Promise<SqlResult> {
    const [result] = await this.#query(sql, values);
    await this.#probe?.();
    if (Array.isArray(result)) return { rows: result as Record<string, unknown>[], affected: 0 };
    return { rows: [], affected: Number((result as { affectedRows?: number }).affectedRows ?? 0) };
  }

  /**
   * One statement, bounded by the URL's query timeout. A statement that timed out leaves the
   * driver waiting for its reply on that connection, and a failed link is gone: either way the
   * connection is dropped (the server rolls back what it had open) and the session is unusable.
   */
  async #query(sql: string, values: unknown[] = []): Promise<[unknown, unknown]> {
    if (this.#broken)
      throw new DponeError(
        ERROR_CODES.FENCE_UNAVAILABLE,
        'the MariaDB session was dropped after a failed call',
        {
          field: 'target.url',
        },
      );
    try {
      return await this.#connection.query(
        { sql, ...(this.#queryTimeoutMs !== undefined ? { timeout: this.#queryTimeoutMs } : {}) },
        values,
      );
    } catch (error) {
      const { code, fatal } = (error ?? {}) as { code?: unknown; fatal?: unknown };
      if (code === 'PROTOCOL_SEQUENCE_TIMEOUT' || fatal === true) {
        this.#broken = true;
        this.#connection.destroy();
      }
      throw error;
    }
  }

  async close(): Promise<void> {
    if (this.#broken) return;
    // A polite QUIT waits for the server; a link gone silent must not hold the caller.
    let timer: NodeJS.Timeout | undefined;
    const bound = this.#queryTimeoutMs ?? 10_000;
    const ended = await Promise.race([
      this.#connection.end().then(
        () => true,
        () => false,
      ),
      new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), bound))),
    ]);
    clearTimeout(timer);
    if (!ended) this.#connection.destroy();
  }

  /** Drops the connection at once: the server rolls back whatever transaction it had open. */
  destroy(): void {
    this.#connection.destroy();
  }
}

/** Runs `work` on a fresh session and always closes it. */
export async function withSession<T>(
  address: MariadbAddress,
  work: (session: MariadbSession) => Promise<T>,
): Promise<T> {
  const session = await MariadbSession.open(address);
  try {
    return await work(session);
  } finally {
    await session.close();
  }
}

/** A MariaDB identifier, back-quoted. */
export const quote = (name: string): string => `\`${name.replaceAll('`', '``')}\``;
