/** A SQL Server as a provider hands it to the routes' parts (service `mssql`). */
export interface MssqlEndpoint {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
  /** URL query a client needs (e.g. `trustServerCertificate=true` for a container's own certificate). */
  readonly query: string;
  /** host:port the Toxiproxy server uses to reach this server. */
  readonly proxyUpstream: string;
}

export interface MssqlService {
  readonly server: MssqlEndpoint;
  /** A database the provider created for this run's cells (each cell adds its own schemas). */
  readonly cellsDatabase: string;
}

/** The variables the `external` provider reads for SQL Server (credentials come from here only). */
export const MSSQL_ENV = {
  /** `mssql://USER@HOST:1433[?trustServerCertificate=true]` (no password): a login that may create databases. */
  url: 'DPONE_MSSQL_URL',
  password: 'DPONE_MSSQL_PASSWORD',
  upstream: 'DPONE_MSSQL_UPSTREAM',
} as const;
