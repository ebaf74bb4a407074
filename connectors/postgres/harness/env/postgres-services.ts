/**
 * A PostgreSQL server as a provider hands it to the routes' parts: where it is, a database the
 * run's cells live in, and, where the provider owns servers, fresh ones server faults may kill.
 */

/** A PostgreSQL server as seen from this machine. The password stays in memory and goes to workers by env. */
export interface PostgresEndpoint {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
  /** A database that always exists, for administration (CREATE DATABASE …). */
  readonly adminDatabase: string;
  /** host:port the Toxiproxy server uses to reach this server (differs inside a container network). */
  readonly proxyUpstream: string;
}

/** A server this process owns: server faults kill, stop and restart it. */
export interface ControllablePostgres extends PostgresEndpoint, AsyncDisposable {
  postmasterPid(): Promise<number | null>;
  /** SIGKILL the postmaster and its backends; resolves with the killed pid once all are gone. */
  killServer(): Promise<number | null>;
  stopServer(): Promise<void>;
  startServer(): Promise<void>;
  /** Lost-commit faults: an asynchronous streaming standby of this server (absent: no failover here). */
  startStandby?(): Promise<PostgresStandby>;
  /** Lost-commit faults: kills this server and gives its address to a promoted standby. */
  takeOver?(promoted: PostgresStandby): Promise<void>;
}

/** A streaming standby a failover promotes. */
export interface PostgresStandby extends PostgresEndpoint, AsyncDisposable {
  promote(): Promise<void>;
}

/** What the environment offers of PostgreSQL (service `postgres`). */
export interface PostgresService {
  readonly server: PostgresEndpoint;
  /**
   * A database the provider created for this run's cells (each cell adds its own schemas) and
   * drops on dispose, so a run leaves no database behind on a server it does not own.
   */
  readonly cellsDatabase: string;
  /** A fresh, dedicated server for cells that kill or stop servers; absent when the provider cannot own one. */
  readonly dedicated?: () => Promise<ControllablePostgres>;
  /**
   * A fresh, dedicated server whose data directory is `dataDir` (a folder the harness chose: on a
   * power-loss filesystem), started with these extra `name=value` settings; absent when the
   * provider cannot place a server's data (power-loss cells are then UNVERIFIED).
   */
  readonly dedicatedAt?: (dataDir: string, settings: readonly string[]) => Promise<ControllablePostgres>;
  /**
   * A PgBouncer in front of `server` in this pool mode (`session` | `transaction`), started on first
   * use and kept for the run; absent when the provider has none (the pooler lane is then UNVERIFIED).
   */
  readonly pooler?: (mode: 'session' | 'transaction') => Promise<PooledEndpoint>;
  /** Why there is no pooler here (no pgbouncer binary), for the UNVERIFIED reason. */
  readonly poolerMissing?: string;
}

/** Where a pooler listens, in front of the service's server (same login, same databases). */
export interface PooledEndpoint {
  readonly host: string;
  readonly port: number;
  readonly mode: 'session' | 'transaction';
}

/** The variables the `external` provider reads for PostgreSQL (credentials come from here only). */
export const POSTGRES_ENV = {
  url: 'DPONE_PG_URL',
  password: 'DPONE_PG_PASSWORD',
  /** host:port Toxiproxy uses to reach PostgreSQL, when it differs from the URL's (e.g. a container alias). */
  upstream: 'DPONE_PG_UPSTREAM',
} as const;
