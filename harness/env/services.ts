import type { ClickHouseService } from '../../connectors/clickhouse/harness/env/clickhouse-endpoint.ts';
import { CLICKHOUSE_SERVICE } from '../../connectors/clickhouse/harness/env/service.ts';
import type { MssqlService } from '../../connectors/mssql/harness/env/mssql-service.ts';
import { MSSQL_SERVICE } from '../../connectors/mssql/harness/env/service.ts';
import type { PostgresService } from '../../connectors/postgres/harness/env/postgres-services.ts';
import { POSTGRES_SERVICE } from '../../connectors/postgres/harness/env/service.ts';
import type { OwnServerFault, ServiceEntry } from './service-entry.ts';
import type { ToxiproxyService } from './toxiproxy-service.ts';

/**
 * The services a provider starts for a route: exactly those its parts declare (a source, target
 * or journal part names what it needs), so the embedded route starts nothing and a ClickHouse
 * route starts no PostgreSQL unless its source or journal is one.
 */
export interface EnvironmentServices {
  readonly postgres?: PostgresService;
  readonly clickhouse?: ClickHouseService;
  readonly mssql?: MssqlService;
  readonly toxiproxy?: ToxiproxyService;
}

export type ServiceName = keyof EnvironmentServices;

/** A database server's service (every service but Toxiproxy, which the providers run themselves). */
export type EngineServiceName = Exclude<ServiceName, 'toxiproxy'>;

/**
 * The engines' server services: the one place the environment names them. An engine keeps its
 * entry (service-entry.ts) in `connectors/<engine>/harness/env/service.ts` and adds ONE line here;
 * the providers go through this table and name no engine.
 */
export const ENGINE_SERVICES = {
  postgres: POSTGRES_SERVICE,
  clickhouse: CLICKHOUSE_SERVICE,
  mssql: MSSQL_SERVICE,
} as const satisfies {
  readonly [K in EngineServiceName]: ServiceEntry<NonNullable<EnvironmentServices[K]>>;
};

/** The components `dpone doctor` probes for the engines' services (their install hints' keys). */
export type EngineComponentId = {
  [K in EngineServiceName]: keyof (typeof ENGINE_SERVICES)[K]['install']['hints'];
}[EngineServiceName];

/** The engine services in the order the providers start them. */
export const ENGINE_SERVICE_NAMES = Object.keys(ENGINE_SERVICES) as readonly EngineServiceName[];

export const SERVICE_NAMES: readonly ServiceName[] = [...ENGINE_SERVICE_NAMES, 'toxiproxy'];

/** What each service is, for one-line reasons ("needs SQL Server"). */
export const SERVICE_LABELS: Readonly<Record<ServiceName, string>> = {
  ...(Object.fromEntries(ENGINE_SERVICE_NAMES.map((name) => [name, ENGINE_SERVICES[name].label])) as Record<
    EngineServiceName,
    string
  >),
  toxiproxy: 'Toxiproxy',
};

/**
 * Whether a started service offers a cell a server of its own that `fault` can drive (its entry's
 * `ownServer`): the services started are the route's, so this asks the route's engines without
 * naming one.
 */
export function ownsServerFor(services: EnvironmentServices, fault: OwnServerFault): boolean {
  return ENGINE_SERVICE_NAMES.some((name) => offersOwnServer(name, services, fault));
}

/**
 * Why no started service offers the pooler lane a pooler (the first reason of an engine that has
 * one, ServiceEntry.pooler), or null when one does.
 */
export function poolerMissing(services: EnvironmentServices, provider: string): string | null {
  const reasons = ENGINE_SERVICE_NAMES.flatMap((name) => poolerReason(name, services, provider));
  if (reasons.length === 0) return `this provider (${provider}) starts no pooler: the pooler lane cannot run`;
  return reasons.includes(null) ? null : reasons[0]!;
}

/** The entries, each typed by its own service, so one can be read for a name of any engine. */
const ENTRIES: { readonly [K in EngineServiceName]: ServiceEntry<NonNullable<EnvironmentServices[K]>> } =
  ENGINE_SERVICES;

function poolerReason<K extends EngineServiceName>(
  name: K,
  services: EnvironmentServices,
  provider: string,
): (string | null)[] {
  const entry = ENTRIES[name];
  // An optional member read by a generic name: TS keeps `undefined` apart only by this cast.
  const service = services[name] as NonNullable<EnvironmentServices[K]> | undefined;
  return entry.pooler ? [entry.pooler.missing(service, provider)] : [];
}

function offersOwnServer<K extends EngineServiceName>(
  name: K,
  services: EnvironmentServices,
  fault: OwnServerFault,
): boolean {
  const entry = ENTRIES[name];
  const service = services[name];
  return (
    service !== undefined &&
    entry.ownServer?.faults.includes(fault) === true &&
    entry.ownServer.offered(service)
  );
}
