import type { ClickHouseService } from './clickhouse-endpoint.ts';
import { clickhouseHttp } from './clickhouse-endpoint.ts';
import { CLICKHOUSE_USERS, ClickHouseServer } from './clickhouse-server.ts';

async function startClickHouse(binary: string, owned: AsyncDisposable[]): Promise<ClickHouseServer> {
  const server = await ClickHouseServer.start({ binary });
  owned.push(server);
  return server;
}

function clickhouseService(
  server: ClickHouseServer,
  binary: string,
  owned: AsyncDisposable[],
): ClickHouseService {
  const worker = (s: ClickHouseServer) => ({ user: CLICKHOUSE_USERS.writer, password: s.password });
  return {
    admin: server.admin,
    worker: worker(server),
    proxyUpstream: `127.0.0.1:${server.httpPort}`,
    dedicated: async () => {
      const extra = await startClickHouse(binary, owned);
      return Object.assign(extra, { worker: worker(extra), proxyUpstream: `127.0.0.1:${extra.httpPort}` });
    },
  };
}

/**
 * The local provider's ClickHouse: a server from `binary` (and fresh dedicated ones on demand),
 * stopped on dispose. Returns its version for the evidence.
 */
export async function startLocalClickHouse(
  binary: string,
  owned: AsyncDisposable[],
): Promise<{ service: ClickHouseService; version: string }> {
  const server = await startClickHouse(binary, owned);
  const version = (await clickhouseHttp(server.admin, 'SELECT version()', 'read its version')).trim();
  return { service: clickhouseService(server, binary, owned), version };
}
