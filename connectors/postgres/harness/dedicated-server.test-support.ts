import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect } from 'vitest';
import { LocalPostgresCluster } from './env/postgres-cluster.ts';
import type { ControllablePostgres, PostgresService } from './env/postgres-services.ts';

/**
 * What the storage-fault live tests (full disk, power loss) share: a service whose dedicated
 * server for a cell is a local cluster of `bin` (as the local provider starts one), and cell
 * folders that, with the servers held in them, are released after each case.
 */
export function localDedicatedService(bin: string): PostgresService {
  return {
    dedicatedAt: async (dataDir: string, settings: readonly string[]): Promise<ControllablePostgres> => {
      const cluster = await LocalPostgresCluster.start({ bin, dataDir, settings });
      return Object.assign(cluster, {
        adminDatabase: 'postgres',
        proxyUpstream: `127.0.0.1:${cluster.port}`,
      });
    },
  } as unknown as PostgresService;
}

/** Registers the after-each release; `folder` makes a cell folder, `held` keeps a server to release. */
export function releasedAfterEach<Held extends { release(): Promise<void> }>(prefix: string) {
  const dirs: string[] = [];
  const servers: Held[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.release();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return {
    folder(): string {
      const dir = mkdtempSync(join(tmpdir(), prefix));
      dirs.push(dir);
      return dir;
    },
    held(server: Held): Held {
      servers.push(server);
      return server;
    },
  };
}

/**
 * The parts of one cell (target and journal) hold one dedicated server: the second hold gets the
 * first one's, which keeps running when the first part lets go. Returns the first part after the
 * last one let go too, for the caller to check what its fault left behind (stopped, unmounted).
 */
export async function oneServerForTheParts<
  Held extends { owned: ControllablePostgres; release(): Promise<void> },
>(hold: () => Promise<Held>): Promise<Held> {
  const target = await hold();
  const journal = await hold();
  expect(journal.owned).toBe(target.owned);
  await target.release();
  expect(await target.owned.postmasterPid()).not.toBeNull();
  await journal.release();
  return target;
}
