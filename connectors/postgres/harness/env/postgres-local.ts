import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createCellsDatabase } from './postgres-admin.ts';
import { LocalPostgresCluster } from './postgres-cluster.ts';
import type { ControllablePostgres, PostgresService } from './postgres-services.ts';
import type { PoolMode } from './pgbouncer.ts';
import { LocalPgBouncer, PGBOUNCER_MISSING, findPgBouncer } from './pgbouncer.ts';

const run = promisify(execFile);
const CELLS_DATABASE = 'dpone_cells';

function asControllable(cluster: LocalPostgresCluster): ControllablePostgres {
  return Object.assign(cluster, { adminDatabase: 'postgres', proxyUpstream: `127.0.0.1:${cluster.port}` });
}

/**
 * The local provider's PostgreSQL: a throw-away cluster from the binaries in `bin` (the whole
 * cluster is thrown away on dispose, and the run's database with it), fresh dedicated clusters on
 * demand, and PgBouncer in front of it when this machine has one. Returns its version for the
 * evidence.
 */
export async function startLocalPostgres(
  bin: string,
  env: NodeJS.ProcessEnv,
  owned: AsyncDisposable[],
): Promise<{ service: PostgresService; version: string }> {
  const cluster = asControllable(await LocalPostgresCluster.start({ bin }));
  owned.push(cluster);
  const version = (await run(join(bin, 'postgres'), ['--version'])).stdout.trim();
  // The whole cluster is thrown away on dispose, and the database with it.
  await createCellsDatabase(cluster, CELLS_DATABASE);
  const service: PostgresService = {
    server: cluster,
    cellsDatabase: CELLS_DATABASE,
    dedicated: async () => {
      const extra = asControllable(await LocalPostgresCluster.start({ bin }));
      owned.push(extra);
      return extra;
    },
    dedicatedAt: async (dataDir, settings) => {
      const extra = asControllable(await LocalPostgresCluster.start({ bin, dataDir, settings }));
      owned.push(extra);
      return extra;
    },
    ...localPooler(cluster, env, owned),
  };
  return { service, version };
}

/** PgBouncer per pool mode in front of the run's server, started on first use (pooler lane cells). */
function localPooler(
  cluster: ControllablePostgres,
  env: NodeJS.ProcessEnv,
  owned: AsyncDisposable[],
): Pick<PostgresService, 'pooler' | 'poolerMissing'> {
  const binary = findPgBouncer(env);
  if (binary === null) return { poolerMissing: PGBOUNCER_MISSING };
  const started = new Map<PoolMode, Promise<LocalPgBouncer>>();
  return {
    pooler: async (mode) => {
      let bouncer = started.get(mode);
      if (!bouncer) {
        bouncer = LocalPgBouncer.start({
          binary,
          mode,
          upstream: { host: cluster.host, port: cluster.port },
          user: cluster.user,
          password: cluster.password,
        }).then((b) => (owned.push(b), b));
        started.set(mode, bouncer);
      }
      const { host, port } = await bouncer;
      return { host, port, mode };
    },
  };
}
