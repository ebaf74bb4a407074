import { firstLine } from '../../../../harness/env/first-line.ts';
import type { ServiceEntry } from '../../../../harness/env/service-entry.ts';
import type { ClickHouseService } from './clickhouse-endpoint.ts';
import { CLICKHOUSE_ENV } from './clickhouse-endpoint.ts';
import { findClickHouseServer } from './clickhouse-server.ts';

/** ClickHouse as a server service of the environment providers (its harness entry, ../engine.ts, carries it). */
export const CLICKHOUSE_SERVICE: ServiceEntry<ClickHouseService, 'clickhouse'> = {
  label: 'ClickHouse',
  install: {
    hints: { clickhouse: 'apt-get install -y clickhouse-server clickhouse-client' },
    matchers: [[/clickhouse/i, 'clickhouse', 50]],
  },
  external: {
    requiredEnv: [CLICKHOUSE_ENV.url, CLICKHOUSE_ENV.password],
    start: async (env) => (await import('./external-clickhouse.ts')).externalClickHouse(env),
  },
  // A server of the cell's own (local provider): killed and restarted, never stalled or failed over.
  ownServer: {
    faults: ['server-kill'],
    offered: (service) => service.dedicated !== undefined,
  },
  doctor: {
    // A target only: doctor lists its routes from each source (no route of its own).
    uses: { providers: { local: ['clickhouse'], docker: [], external: [] } },
    probe: async ({ env }) => {
      const clickhouse = findClickHouseServer(env);
      const chVersion = clickhouse ? await clickhouseVersion(clickhouse) : null;
      return [
        [
          {
            id: 'clickhouse',
            name: 'ClickHouse server',
            present: chVersion !== null,
            detail: chVersion
              ? `${chVersion} (${clickhouse})`
              : 'not found (/usr/sbin/clickhouse-server, clickhouse-server on PATH)',
          },
          50,
        ],
      ];
    },
  },
  local: {
    missing: (env) =>
      findClickHouseServer(env) === null
        ? 'ClickHouse server binary not found (apt-get install clickhouse-server, or $DPONE_CLICKHOUSE_SERVER)'
        : null,
    start: async (env, owned) =>
      (await import('./clickhouse-local.ts')).startLocalClickHouse(findClickHouseServer(env)!, owned),
  },
  docker: {
    image: 'clickhouse/clickhouse-server:25.8',
    start: async (network, owned) =>
      (await import('./clickhouse-container.ts')).startClickHouseContainer(
        CLICKHOUSE_SERVICE.docker.image,
        network,
        owned,
      ),
  },
};

/** ClickHouse 18.16's server has no --version; its client, installed beside it, has. */
async function clickhouseVersion(server: string): Promise<string> {
  const version =
    (await firstLine(server, ['--version'])) ?? (await firstLine('clickhouse-client', ['--version']));
  return version ?? 'version not reported';
}
