import type { ClickHouseEndpoint, ClickHouseService } from './clickhouse-endpoint.ts';
import { CLICKHOUSE_ENV, clickhouseHttp } from './clickhouse-endpoint.ts';
import { serverUrl } from '../../../../harness/env/external/external-env.ts';

/**
 * The user's ClickHouse (`clickhouse://USER@HOST:HTTP_PORT`, password from DPONE_CH_PASSWORD):
 * checked with one query before anything is created. Each cell creates its own `c_<hash>`
 * database and drops it; the server must log parts (`<part_log>`; the inspector proves it). The
 * harness owns no server here, so cells that kill one are UNVERIFIED.
 */
export async function externalClickHouse(env: NodeJS.ProcessEnv): Promise<ClickHouseService | string> {
  const url = serverUrl(env, CLICKHOUSE_ENV.url, CLICKHOUSE_ENV.password);
  if (typeof url === 'string') return url;
  const port = Number(url.port || 8123);
  const admin: ClickHouseEndpoint = {
    host: url.hostname,
    httpPort: port,
    user: decodeURIComponent(url.username || 'default'),
    password: env[CLICKHOUSE_ENV.password] ?? '',
  };
  try {
    await clickhouseHttp(admin, 'SELECT 1', 'check the login');
  } catch {
    return `ClickHouse at ${admin.host}:${port} did not accept user ${admin.user} (check ${CLICKHOUSE_ENV.url} and ${CLICKHOUSE_ENV.password})`;
  }
  return {
    admin,
    worker: { user: admin.user, password: admin.password },
    proxyUpstream: env[CLICKHOUSE_ENV.upstream] ?? `${url.hostname}:${port}`,
  };
}
