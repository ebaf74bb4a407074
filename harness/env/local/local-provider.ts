import type { EnvironmentProvider } from '../environment.ts';
import { asEnvironment } from '../postgres-services.ts';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { disposeAll } from '../dispose-all.ts';
import { createCellsDatabase } from '../postgres-admin.ts';
import type { ControllablePostgres, PostgresServices, ProvisionResult } from '../postgres-services.ts';
import { findLocalBinaries } from './local-binaries.ts';
import { localToxiproxyService } from './local-toxiproxy-service.ts';
import { LocalPostgresCluster } from './postgres-cluster.ts';
import { LocalToxiproxyServer } from './toxiproxy-server.ts';

const run = promisify(execFile);
const CELLS_DATABASE = 'dpone_cells';

function asControllable(cluster: LocalPostgresCluster): ControllablePostgres {
  return Object.assign(cluster, { adminDatabase: 'postgres', proxyUpstream: `127.0.0.1:${cluster.port}` });
}

/**
 * The `local` provider: starts a throw-away PostgreSQL cluster and a Toxiproxy server from the
 * binaries on this machine and stops both on dispose. Missing binaries or a server that will not
 * start give `unverified` with a one-line reason (the caller decides whether that fails CI).
 */
export async function provisionLocal(env: NodeJS.ProcessEnv = process.env): Promise<ProvisionResult> {
  const binaries = findLocalBinaries(env);
  if (binaries.postgresBin === null || binaries.toxiproxyServer === null) {
    return { status: 'unverified', reason: `local provider: ${binaries.missing.join('; ')}` };
  }
  const bin = binaries.postgresBin;
  const owned: AsyncDisposable[] = [];
  try {
    const toxi = await LocalToxiproxyServer.start(binaries.toxiproxyServer);
    owned.push(toxi);
    const cluster = await LocalPostgresCluster.start({ bin });
    owned.push(cluster);
    const pgVersion = (await run(join(bin, 'postgres'), ['--version'])).stdout.trim();
    const postgres = asControllable(cluster);
    // The whole cluster is thrown away on dispose, and the database with it.
    await createCellsDatabase(postgres, CELLS_DATABASE);
    const services: PostgresServices = {
      provider: 'local',
      postgres,
      cellsDatabase: CELLS_DATABASE,
      toxiproxy: localToxiproxyService(toxi),
      dedicatedPostgres: async () => {
        const extra = asControllable(await LocalPostgresCluster.start({ bin }));
        owned.push(extra);
        return extra;
      },
      versions: { postgres: pgVersion, toxiproxy: await toxi.version() },
      async [Symbol.asyncDispose]() {
        await disposeAll(owned);
      },
    };
    return { status: 'started', services };
  } catch {
    await disposeAll(owned);
    return {
      status: 'unverified',
      reason: 'local provider: a server did not start (PostgreSQL or Toxiproxy)',
    };
  }
}

/** The `local` provider as the harness registry sees it. */
export const provider: EnvironmentProvider = {
  name: 'local',
  start: async ({ env }) => asEnvironment(await provisionLocal(env)),
};
