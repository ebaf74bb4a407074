import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { findLocalBinaries } from '../local/local-binaries.ts';
import { LocalPostgresCluster } from '../local/postgres-cluster.ts';
import { LocalToxiproxyServer } from '../local/toxiproxy-server.ts';
import { provisionExternal } from './external-provider.ts';

const binaries = findLocalBinaries();
const unverified = binaries.missing.length > 0 && process.env.CI !== 'true';
if (unverified) console.warn(`UNVERIFIED external provider (live): ${binaries.missing.join('; ')}`);

describe.skipIf(unverified)('external provider (live, against locally started servers)', () => {
  it('takes PostgreSQL and Toxiproxy by URL, the password only from env, and proxies on a given port range', async () => {
    await using cluster = await LocalPostgresCluster.start({ bin: binaries.postgresBin ?? '' });
    await using toxi = await LocalToxiproxyServer.start(binaries.toxiproxyServer ?? '');
    const probe = await LocalToxiproxyServer.start(binaries.toxiproxyServer ?? '');
    const first = probe.port; // a port just freed by the kernel: a usable one-port range
    await probe[Symbol.asyncDispose]();
    const result = await provisionExternal({
      DPONE_PG_URL: cluster.url('postgres'),
      DPONE_PG_PASSWORD: cluster.password,
      DPONE_TOXIPROXY_URL: toxi.apiUrl,
      DPONE_TOXIPROXY_PORTS: `${first}-${first}`,
    });
    if (result.status !== 'started') throw new Error(result.reason);
    await using services = result.services;
    expect(JSON.stringify({ ...services, postgres: { ...services.postgres, password: '' } })).not.toContain(
      cluster.password,
    );
    const proxy = await services.toxiproxy.createProxy('external-test', services.postgres.proxyUpstream);
    expect(proxy.port).toBe(first);
    const client = new pg.Client({
      host: proxy.host,
      port: proxy.port,
      user: services.postgres.user,
      password: services.postgres.password,
      database: 'postgres',
    });
    await client.connect();
    expect((await client.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    await client.end();
  });
});
