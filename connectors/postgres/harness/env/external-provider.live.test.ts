import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenAddressesOf } from '../../../../harness/env/fixtures/listen-sockets.ts';
import { findLocalBinaries } from './local-binaries.ts';
import { localToxiproxyService } from '../../../../harness/env/local/local-toxiproxy-service.ts';
import { LocalPostgresCluster } from './postgres-cluster.ts';
import { LocalToxiproxyServer } from '../../../../harness/env/local/toxiproxy-server.ts';
import type { PostgresService } from './postgres-services.ts';
import { startExternal } from '../../../../harness/env/external/external-provider.ts';
import { ENGINE_SERVICES } from '../../../../harness/routes/engine-services.ts';

const provisionExternal = async (env: NodeJS.ProcessEnv) => {
  const result = await startExternal(ENGINE_SERVICES, ['postgres', 'toxiproxy'], env);
  if (result.status !== 'started') return result;
  const { environment } = result;
  const { toxiproxy } = environment.services;
  const postgres = environment.services.postgres as PostgresService | undefined;
  const services = {
    cellsDatabase: postgres!.cellsDatabase,
    postgres: postgres!.server,
    toxiproxy: toxiproxy!,
    [Symbol.asyncDispose]: () => environment[Symbol.asyncDispose](),
  };
  return { status: 'started' as const, services };
};

const binaries = findLocalBinaries();
const unverified = binaries.missing.length > 0 && process.env.CI !== 'true';
if (unverified) console.warn(`UNVERIFIED external provider (live): ${binaries.missing.join('; ')}`);

let cluster: LocalPostgresCluster;
let toxi: LocalToxiproxyServer;

async function admin<T>(body: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ ...cluster, database: 'postgres' });
  await client.connect();
  try {
    return await body(client);
  } finally {
    await client.end();
  }
}

const databases = () =>
  admin(
    async (c) => (await c.query("SELECT datname FROM pg_database WHERE datname LIKE 'dpone_cells%'")).rows,
  );
const proxies = async () => Object.keys((await (await fetch(`${toxi.apiUrl}/proxies`)).json()) as object);

/** A throw-away cluster posing as a staging server the harness does not own. */
describe.skipIf(unverified)('external provider (live, a local cluster posing as external)', () => {
  beforeAll(async () => {
    cluster = await LocalPostgresCluster.start({ bin: binaries.postgresBin ?? '' });
    toxi = await LocalToxiproxyServer.start(binaries.toxiproxyServer ?? '');
    await admin(async (c) => {
      await c.query("CREATE ROLE plain LOGIN PASSWORD 'plain-pw'");
      await c.query("CREATE ROLE builder LOGIN CREATEDB PASSWORD 'builder-pw'");
    });
  });
  afterAll(async () => {
    await toxi?.[Symbol.asyncDispose]();
    await cluster?.[Symbol.asyncDispose]();
  });

  const env = (user: string, password: string, extra: Record<string, string> = {}) => ({
    DPONE_PG_URL: `postgres://${user}@${cluster.host}:${cluster.port}/postgres`,
    DPONE_PG_PASSWORD: password,
    DPONE_TOXIPROXY_URL: toxi.apiUrl,
    ...extra,
  });

  it('proxies listen on loopback only, and dispose removes its database and every proxy', async () => {
    const result = await provisionExternal(env('builder', 'builder-pw'));
    if (result.status !== 'started') throw new Error(result.reason);
    {
      await using services = result.services;
      expect(services.cellsDatabase).toMatch(/^dpone_cells_[0-9a-f]{12}$/);
      expect(await databases()).toEqual([{ datname: services.cellsDatabase }]);
      expect(JSON.stringify({ ...services, postgres: { ...services.postgres, password: '' } })).not.toContain(
        'builder-pw',
      );
      const proxy = await services.toxiproxy.createProxy('external-test', services.postgres.proxyUpstream);
      // What the kernel says (as `ss -ltn` would), not what we asked Toxiproxy for.
      expect(listenAddressesOf(proxy.port)).toEqual(['127.0.0.1']);
      const client = new pg.Client({
        host: proxy.host,
        port: proxy.port,
        user: 'builder',
        password: 'builder-pw',
        database: services.cellsDatabase,
      });
      await client.connect();
      expect((await client.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      await client.end();
      expect(await proxies()).toEqual(['external-test']);
    }
    expect(await databases()).toEqual([]);
    expect(await proxies()).toEqual([]);
  });

  it('uses the given port range, and listens beyond loopback only when told to', async () => {
    const probe = await LocalToxiproxyServer.start(binaries.toxiproxyServer ?? '');
    const first = probe.port; // a port just freed by the kernel: a usable one-port range
    await probe[Symbol.asyncDispose]();
    const result = await provisionExternal(
      env('builder', 'builder-pw', {
        DPONE_TOXIPROXY_PORTS: `${first}-${first}`,
        DPONE_TOXIPROXY_LISTEN_HOST: '0.0.0.0',
      }),
    );
    if (result.status !== 'started') throw new Error(result.reason);
    await using services = result.services;
    const proxy = await services.toxiproxy.createProxy('wide', services.postgres.proxyUpstream);
    expect(proxy.port).toBe(first);
    expect(listenAddressesOf(first).some((address) => address === '0.0.0.0' || address === '::')).toBe(true);
  });

  it('checks the privileges it needs before creating anything, and says which is missing', async () => {
    const withoutCreatedb = await provisionExternal(env('plain', 'plain-pw'));
    expect(withoutCreatedb).toEqual({
      status: 'unverified',
      reason: expect.stringMatching(/role plain lacks CREATEDB.*ALTER ROLE plain CREATEDB/),
    });
    const wrongPassword = await provisionExternal(env('builder', 'nope'));
    expect(wrongPassword).toEqual({
      status: 'unverified',
      reason: expect.stringMatching(/refused the login \(SQLSTATE 28P01\)/),
    });
    expect(JSON.stringify(wrongPassword)).not.toContain('nope');
    expect(await databases()).toEqual([]);
    expect(await proxies()).toEqual([]);
  });

  it('the local provider’s proxies listen on loopback only too', async () => {
    const service = localToxiproxyService(toxi);
    const proxy = await service.createProxy('local-test', `127.0.0.1:${cluster.port}`);
    try {
      expect(listenAddressesOf(proxy.port)).toEqual(['127.0.0.1']);
    } finally {
      await fetch(`${toxi.apiUrl}/proxies/local-test`, { method: 'DELETE' });
    }
  });
});
