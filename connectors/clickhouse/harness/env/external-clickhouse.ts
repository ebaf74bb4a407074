import type { ClickHouseEndpoint, ClickHouseService } from './clickhouse-endpoint.ts';
import { CLICKHOUSE_ENV, clickhouseHttp } from './clickhouse-endpoint.ts';
import { externalLogin } from '../../../../harness/env/external/external-env.ts';

/**
 * The user's ClickHouse (`clickhouse://USER@HOST:HTTP_PORT`, password from DPONE_CH_PASSWORD):
 * checked with one query before anything is created. Each cell creates its own `c_<hash>`
 * database and drops it; the server must log parts (`<part_log>`; the inspector proves it). The
 * harness owns no server here, so cells that kill one are UNVERIFIED.
 */
export async function externalClickHouse(env: NodeJS.ProcessEnv): Promise<ClickHouseService | string> {
  const found = externalLogin(env, CLICKHOUSE_ENV, { port: 8123, user: 'default' });
  if (typeof found === 'string') return found;
  const { host, port, user, password, proxyUpstream } = found.login;
  const admin: ClickHouseEndpoint = { host, httpPort: port, user, password };
  try {
    await clickhouseHttp(admin, 'SELECT 1', 'check the login');
  } catch {
    return `ClickHouse at ${admin.host}:${port} did not accept user ${admin.user} (check ${CLICKHOUSE_ENV.url} and ${CLICKHOUSE_ENV.password})`;
  }
  return {
    admin,
    worker: { user: admin.user, password: admin.password },
    proxyUpstream,
  };
}
