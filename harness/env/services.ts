import type { ClickHouseService } from '../../connectors/clickhouse/harness/env/clickhouse-endpoint.ts';
import type { MssqlService } from '../../connectors/mssql/harness/env/mssql-service.ts';
import type { PostgresService } from '../../connectors/postgres/harness/env/postgres-services.ts';
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

export const SERVICE_NAMES: readonly ServiceName[] = ['postgres', 'clickhouse', 'mssql', 'toxiproxy'];

/** What each service is, for one-line reasons ("needs SQL Server"). */
export const SERVICE_LABELS: Readonly<Record<ServiceName, string>> = {
  postgres: 'PostgreSQL',
  clickhouse: 'ClickHouse',
  mssql: 'SQL Server',
  toxiproxy: 'Toxiproxy',
};
