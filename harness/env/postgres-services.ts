import type { EnvironmentResult, StartedEnvironment } from './environment.ts';
/**
 * What the PostgreSQL route needs from an environment provider (local, docker, external): a
 * PostgreSQL server, a Toxiproxy server able to put a proxy in front of it, and, where the
 * provider owns the servers, fresh servers it can kill and restart for server faults.
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
}

export interface ProxyEndpoint {
  readonly name: string;
  /** Where clients connect to go through the proxy. */
  readonly host: string;
  readonly port: number;
}

export interface ToxiproxyService {
  /** Base URL of the Toxiproxy HTTP API, for toxiproxy-node-client. */
  readonly apiUrl: string;
  version(): Promise<string>;
  /** Creates a proxy named `name` in front of `upstream` (host:port as the proxy server sees it). */
  createProxy(name: string, upstream: string): Promise<ProxyEndpoint>;
}

export interface PostgresServices extends AsyncDisposable {
  readonly provider: 'local' | 'docker' | 'external';
  readonly postgres: PostgresEndpoint;
  /**
   * A database the provider created for this run's cells (each cell adds its own schemas) and
   * drops on dispose, so a run leaves no database behind on a server it does not own.
   */
  readonly cellsDatabase: string;
  readonly toxiproxy: ToxiproxyService;
  /** A fresh, dedicated server for cells that kill or stop servers; absent when the provider cannot own one. */
  readonly dedicatedPostgres?: () => Promise<ControllablePostgres>;
  /** Versions for the evidence's environment block. */
  readonly versions: Readonly<Record<string, string>>;
}

/** Either started services or the one-line reason they could not be had. */
export type ProvisionResult =
  | { readonly status: 'started'; readonly services: PostgresServices }
  | { readonly status: 'unverified'; readonly reason: string };

/** Key under which a StartedEnvironment carries these services. */
export const POSTGRES_SERVICES_KEY = 'postgres';

/** Wraps provisioned services as the harness's StartedEnvironment (services under `postgres`). */
export function asEnvironment(result: ProvisionResult): EnvironmentResult {
  if (result.status === 'unverified') return result;
  const services = result.services;
  const environment: StartedEnvironment = {
    provider: services.provider,
    databases: { postgres: services.versions.postgres ?? 'unknown' },
    toxiproxy: services.versions.toxiproxy ?? null,
    services: { [POSTGRES_SERVICES_KEY]: services },
    [Symbol.asyncDispose]: () => services[Symbol.asyncDispose](),
  };
  return { status: 'started', environment };
}

/** The PostgreSQL services of a started environment, or null when it carries none. */
export function postgresServicesOf(environment: StartedEnvironment): PostgresServices | null {
  const value = environment.services[POSTGRES_SERVICES_KEY];
  return value && typeof value === 'object' && 'toxiproxy' in value ? (value as PostgresServices) : null;
}
